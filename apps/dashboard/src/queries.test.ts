import { describe, expect, it } from 'vitest';
import { buildQueries, TOP_N } from './queries';
import { DEFAULT_VIEW } from './view-state';

const NOW = Date.UTC(2026, 10, 23, 12, 30);

describe('buildQueries', () => {
  it('asks every query of a refresh over the same range and filters', () => {
    const q = buildQueries({ ...DEFAULT_VIEW, apiId: 'api_1', keyIds: ['k1'], tags: ['t1', 't2'] }, NOW);
    const base = { apiId: 'api_1', start: NOW - 86_400_000, end: NOW, keyId: ['k1'], tag: ['t1', 't2'] };
    expect(q.totals).toEqual(base);
    expect(q.series).toEqual({ ...base, groupBy: ['hour'], timeZone: 'UTC' });
    expect(q.topKeys).toEqual({ ...base, groupBy: ['key'], orderBy: 'total', order: 'desc', limit: TOP_N });
    expect(q.topIdentities.groupBy).toEqual(['identity']);
    expect(q.topTags.groupBy).toEqual(['tag']);
    expect(q.topRegions).toEqual({
      ...base,
      groupBy: ['region'],
      orderBy: 'total',
      order: 'desc',
      limit: TOP_N,
    });
  });

  it('leaves empty filters out', () => {
    expect(buildQueries({ ...DEFAULT_VIEW, apiId: 'a' }, NOW).totals).toEqual({
      apiId: 'a',
      start: NOW - 86_400_000,
      end: NOW,
    });
  });

  it("uses a read token's API and externalId whatever the view says", () => {
    const view = { ...DEFAULT_VIEW, apiId: 'other', externalId: 'someone-else', range: '30d' as const };
    const q = buildQueries(view, NOW, { apiId: 'api_1', externalId: 'acme' });
    expect(q.series).toMatchObject({ apiId: 'api_1', externalId: 'acme', groupBy: ['day'] });
  });
});

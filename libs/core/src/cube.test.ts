import { describe, expect, it } from 'vitest';
import { chooseCube } from './cube';
import type { ParsedQuery } from './types';

const q = (extra: Partial<ParsedQuery> = {}, groupBy: Partial<ParsedQuery['groupBy']> = {}): ParsedQuery => ({
  apiId: 'api',
  endHour: 1,
  groupBy: { key: false, identity: false, tag: false, tags: false, ...groupBy },
  ...extra,
});

describe('chooseCube', () => {
  it.each([
    ['nothing: totals', q(), 't'],
    ['a time granularity adds no dimension', q({}, { granularity: 'day' }), 't'],
    ['keyId filter', q({ keyIds: ['k'] }), 'k'],
    ['groupBy key', q({}, { key: true }), 'k'],
    ['keyId filter and groupBy key', q({ keyIds: ['k'] }, { key: true, granularity: 'hour' }), 'k'],
    ['an empty keyId list filters nothing', q({ keyIds: [] }), 't'],
    ['externalId filter', q({ externalId: 'e' }), 'i'],
    ['groupBy identity', q({}, { identity: true }), 'i'],
    ['externalId and groupBy identity', q({ externalId: 'e' }, { identity: true }), 'i'],
    ['tag filter', q({ tags: ['a'] }), 's'],
    ['groupBy tag', q({}, { tag: true }), 's'],
    ['groupBy tags', q({}, { tags: true }), 's'],
    ['tag filter and groupBy tags', q({ tags: ['a'] }, { tags: true }), 's'],
    ['region filter: the tag-set dimension', q({ regions: ['eu'] }), 's'],
    ['groupBy region', q({}, { region: true }), 's'],
    ['region and tags', q({ regions: ['eu'] }, { tags: true }), 's'],
    ['region and key', q({ regions: ['eu'] }, { key: true }), 'f'],
    ['groupBy region and identity', q({}, { region: true, identity: true }), 'f'],
    ['an empty region list filters nothing', q({ regions: [] }), 't'],
    ['key and identity', q({ keyIds: ['k'] }, { identity: true }), 'f'],
    ['key and tags', q({}, { key: true, tags: true }), 'f'],
    ['identity and tag', q({ externalId: 'e', tags: ['a'] }), 'f'],
    ['minute slices: totals from t', q({}, { granularity: 'minute' }), 't'],
    [
      'minute slices keep t and f only: one dimension reads f',
      q({ externalId: 'e' }, { granularity: 'minute' }),
      'f',
    ],
    ['minute slices grouped by key', q({}, { key: true, granularity: 'minute' }), 'f'],
    [
      'everything',
      q({ externalId: 'e', keyIds: ['k'], tags: ['a'] }, { key: true, identity: true, tag: true }),
      'f',
    ],
  ])('%s -> %s', (_name, query, cube) => {
    expect(chooseCube(query)).toBe(cube);
  });
});

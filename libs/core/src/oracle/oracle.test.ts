import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsFromEvents } from '../testing/pipeline';
import { DAY_MS, hourOf, HOUR_MS } from '../time';
import type { ParsedQuery } from '../types';
import { NO_GROUPS, testEvent } from '../testing/events';
import { oracle } from './oracle';

const utc = (y: number, mo: number, d = 1, h = 0, mi = 0) => Date.UTC(y, mo - 1, d, h, mi);

describe('oracle: contract rules on small cases', () => {
  const now = utc(2026, 3, 2, 10, 30);
  const options = { now, maxRows: 100 };
  const q = (extra: Partial<ParsedQuery> = {}): ParsedQuery => ({
    apiId: 'api',
    endHour: hourOf(now),
    groupBy: NO_GROUPS,
    ...extra,
  });

  it('selects the API and the hour window trunc(start) <= h <= trunc(end)', () => {
    const events = [
      testEvent(utc(2026, 3, 2, 8, 59)), // before the start hour
      testEvent(utc(2026, 3, 2, 9, 0)),
      testEvent(utc(2026, 3, 2, 10, 59)), // in the end hour
      testEvent(utc(2026, 3, 2, 11, 0)), // after
      testEvent(utc(2026, 3, 2, 9, 30), { apiId: 'other' }),
    ];
    const result = oracle(events, q({ startHour: hourOf(utc(2026, 3, 2, 9, 45)) }), options);
    expect(result.ok && result.rows).toEqual([expect.objectContaining({ valid: 2, total: 2 })]);
  });

  it('counts an event with a repeated tag once per distinct tag, and treats tag sets as sets', () => {
    const events = [
      testEvent(utc(2026, 3, 1), { tags: ['b', 'a', 'b'] }),
      testEvent(utc(2026, 3, 1), { tags: ['a', 'b'] }),
      testEvent(utc(2026, 3, 1), { tags: [] }),
    ];
    const byTag = oracle(events, q({ groupBy: { ...NO_GROUPS, tag: true } }), options);
    expect(byTag.ok && byTag.rows.map((r) => [r.tag, r.total])).toEqual([
      ['a', 2],
      ['b', 2],
    ]);
    const byTags = oracle(events, q({ groupBy: { ...NO_GROUPS, tags: true } }), options);
    expect(byTags.ok && byTags.rows.map((r) => [r.tags, r.total])).toEqual([
      [[], 1],
      [['a', 'b'], 2],
    ]);
  });

  it('refuses a result over the cap unless the limit brings it under', () => {
    const events = ['a', 'b', 'c'].map((keyId) => testEvent(utc(2026, 3, 1), { keyId }));
    const byKey = q({ groupBy: { ...NO_GROUPS, key: true } });
    expect(oracle(events, byKey, { now, maxRows: 2 })).toMatchObject({
      ok: false,
      error: { location: 'query.limit' },
    });
    expect(oracle(events, { ...byKey, limit: 2 }, { now, maxRows: 2 })).toMatchObject({ ok: true });
  });

  it('starts a range without start at the first slice with data, [] without data', () => {
    const byDay = q({ groupBy: { ...NO_GROUPS, granularity: 'day' } });
    const result = oracle([testEvent(utc(2026, 2, 28, 23))], byDay, options);
    expect(result.ok && result.rows.map((r) => r.time)).toEqual([
      utc(2026, 2, 28),
      utc(2026, 3, 1),
      utc(2026, 3, 2),
    ]);
    expect(oracle([], byDay, options)).toEqual({ ok: true, rows: [], precision: 'hour' });
  });
});

describe('oracle: retention model', () => {
  const now = utc(2026, 3, 15, 12);
  const retention = { hourMs: 2 * DAY_MS, dayMs: 10 * DAY_MS, monthMs: 400 * DAY_MS };
  const options = { now, maxRows: 10_000, retention };
  const q = (startMs: number | undefined, groupBy: Partial<ParsedQuery['groupBy']> = {}): ParsedQuery => ({
    apiId: 'api',
    ...(startMs !== undefined && { startHour: hourOf(startMs) }),
    endHour: hourOf(now),
    groupBy: { ...NO_GROUPS, ...groupBy },
  });
  const run = (events: VerificationEvent[], query: ParsedQuery) => {
    const result = oracle(events, query, options);
    if (!result.ok) throw new Error(result.error.message);
    return result;
  };

  it('is exact, at hour precision, while the range holds only kept hours', () => {
    const recent = testEvent(utc(2026, 3, 14, 20));
    expect(run([recent], q(utc(2026, 3, 14)))).toMatchObject({ rows: [{ total: 1 }], precision: 'hour' });
  });

  it('answers an expired edge hour from its day: the whole day counts, flagged day', () => {
    // 03-10 05:30 is before the range (starts 08:00) but in the same day, whose hours expired.
    const sameDay = testEvent(utc(2026, 3, 10, 5, 30));
    const result = run([sameDay], q(utc(2026, 3, 10, 8)));
    expect(result).toMatchObject({ rows: [{ total: 1 }], precision: 'day' });
    // Its counts show at the first hour of the day inside the range.
    const hourly = run([sameDay], q(utc(2026, 3, 10, 8), { granularity: 'hour' }));
    expect(hourly.rows[0]).toMatchObject({ time: utc(2026, 3, 10, 8), total: 1 });
  });

  it('counts an event once even when its day answers several hours of the range', () => {
    const inRange = testEvent(utc(2026, 3, 10, 9));
    expect(run([inRange], q(utc(2026, 3, 10, 8)))).toMatchObject({ rows: [{ total: 1 }] });
  });

  it('a whole expired day answered by its day rollup is exact unless hours are asked for', () => {
    const e = testEvent(utc(2026, 3, 10, 9));
    const wholeDay = { ...q(utc(2026, 3, 10)), endHour: hourOf(utc(2026, 3, 10, 23)) };
    expect(run([e], wholeDay).precision).toBe('hour');
    expect(run([e], { ...wholeDay, groupBy: { ...NO_GROUPS, granularity: 'day' } }).precision).toBe('hour');
    expect(run([e], { ...wholeDay, groupBy: { ...NO_GROUPS, granularity: 'hour' } }).precision).toBe('day');
  });

  it('answers hours past day retention from the month, flagged month', () => {
    const february = testEvent(utc(2026, 2, 1, 3));
    const result = run([february], q(utc(2026, 2, 20), { granularity: 'day' }));
    expect(result.precision).toBe('month');
    expect(result.rows[0]).toMatchObject({ time: utc(2026, 2, 20), total: 1 });
  });

  it('has nothing past the month retention', () => {
    const ancient = testEvent(utc(2020, 1, 1));
    expect(run([ancient], q(undefined))).toMatchObject({ rows: [{ total: 0 }] });
    expect(run([ancient], q(undefined, { granularity: 'month' })).rows).toEqual([]);
  });

  it('equals the plain oracle when retention keeps everything', () => {
    const events = [
      testEvent(utc(2026, 3, 10, 5)),
      testEvent(utc(2025, 6, 1)),
      testEvent(utc(2026, 3, 15, 11)),
    ];
    const forever = { hourMs: 1e13, dayMs: 1e13, monthMs: 1e13 };
    const query = q(utc(2025, 1, 1), { granularity: 'month' });
    expect(oracle(events, query, { now, maxRows: 100, retention: forever })).toEqual(
      oracle(events, query, { now, maxRows: 100 }),
    );
  });
});

describe('oracle: regions', () => {
  const now = utc(2026, 3, 2, 10, 30);
  const options = { now, maxRows: 100 };
  const q = (extra: Partial<ParsedQuery> = {}): ParsedQuery => ({
    apiId: 'api',
    endHour: hourOf(now),
    groupBy: NO_GROUPS,
    ...extra,
  });
  const events = [
    testEvent(utc(2026, 3, 1), { region: 'eu', tags: ['a'] }),
    testEvent(utc(2026, 3, 1), { region: 'us', tags: ['a'] }),
    testEvent(utc(2026, 3, 1), { region: 'eu' }),
    testEvent(utc(2026, 3, 1), { tags: ['a'] }), // no region
    testEvent(utc(2026, 3, 1), { region: '', tags: ['a'] }), // an empty region is no region
  ];

  it('filters by any of the regions; an event without a region matches none', () => {
    const total = (extra: Partial<ParsedQuery>) => {
      const result = oracle(events, q(extra), options);
      return result.ok ? result.rows[0]!.total : -1;
    };
    expect(total({ regions: ['eu'] })).toBe(2);
    expect(total({ regions: ['eu', 'us'] })).toBe(3);
    expect(total({ regions: ['eu'], tags: ['a'] })).toBe(1);
    expect(total({ regions: ['nowhere'] })).toBe(0);
  });

  it('groups by region, leaving out events without one, after tags in the default order', () => {
    const byRegion = oracle(events, q({ groupBy: { ...NO_GROUPS, region: true } }), options);
    expect(byRegion.ok && byRegion.rows.map((r) => [r.region, r.total])).toEqual([
      ['eu', 2],
      ['us', 1],
    ]);
    const byTagsAndRegion = oracle(
      events,
      q({ groupBy: { ...NO_GROUPS, tags: true, region: true } }),
      options,
    );
    expect(byTagsAndRegion.ok && byTagsAndRegion.rows.map((r) => [r.tags, r.region, r.total])).toEqual([
      [[], 'eu', 1],
      [['a'], 'eu', 1],
      [['a'], 'us', 1],
    ]);
    // groupBy=tags ignores regions: one row per tag set whatever the regions.
    const byTags = oracle(events, q({ groupBy: { ...NO_GROUPS, tags: true } }), options);
    expect(byTags.ok && byTags.rows.map((r) => [r.tags, r.region, r.total])).toEqual([
      [[], undefined, 1],
      [['a'], undefined, 4],
    ]);
  });
});

describe('oracle and buildRows agree (in memory)', () => {
  const BASE = utc(2026, 1, 29); // ten days across a month boundary
  const SPAN_HOURS = 10 * 24;
  const keys = ['k1', 'k2', 'K3', 'k_4'];
  const identities = [
    { id: 'i1', externalId: 'alice' },
    { id: 'i2', externalId: 'bob' },
    { id: 'i2', externalId: 'bobby' }, // one id, two externalIds
  ];
  const tagPool = ['a', 'b', 'é', 'B'];
  const regionPool = ['eu', 'us', 'a', 'a,b'];

  const eventArb = fc.record({
    requestId: fc.constant('r'),
    time: fc.integer({ min: BASE, max: BASE + SPAN_HOURS * HOUR_MS - 1 }),
    workspaceId: fc.constant('ws'),
    apiId: fc.constantFrom('api', 'api', 'api', 'other'),
    keyId: fc.constantFrom(...keys),
    outcome: fc.constantFrom(...OUTCOMES),
    identity: fc.option(fc.constantFrom(...identities), { nil: undefined }),
    tags: fc.option(fc.array(fc.constantFrom(...tagPool), { maxLength: 4 }), { nil: undefined }),
    region: fc.option(fc.constantFrom(...regionPool, ''), { nil: undefined }),
  });

  const hourArb = fc.integer({ min: hourOf(BASE) - 5, max: hourOf(BASE) + SPAN_HOURS + 5 });
  // Each option absent half the time, so that filters do not thin out most events.
  const HALF = { nil: undefined, freq: 2 } as const;
  const queryArb = fc
    .record({
      externalId: fc.option(fc.constantFrom('alice', 'bob', 'bobby', 'nobody'), HALF),
      keyIds: fc.option(fc.subarray(keys, { minLength: 1 }), HALF),
      tags: fc.option(fc.subarray(tagPool, { minLength: 1, maxLength: 2 }), HALF),
      regions: fc.option(fc.subarray([...regionPool, 'nowhere'], { minLength: 1, maxLength: 2 }), HALF),
      hours: fc.tuple(fc.option(hourArb, HALF), hourArb),
      dims: fc.subarray(['key', 'identity', 'tag', 'tags', 'region'] as const),
      granularity: fc.option(fc.constantFrom('hour' as const, 'day' as const, 'month' as const), HALF),
      limit: fc.option(fc.integer({ min: 1, max: 60 }), HALF),
      orderBy: fc.option(
        fc.constantFrom('time' as const, 'valid' as const, 'expired' as const, 'total' as const),
        {
          nil: undefined,
        },
      ),
      order: fc.option(fc.constantFrom('asc' as const, 'desc' as const), HALF),
    })
    .map((r): ParsedQuery => {
      const [a, b] = r.hours;
      const endHour = a === undefined ? b : Math.max(a, b);
      const q: ParsedQuery = {
        apiId: 'api',
        endHour,
        groupBy: {
          key: r.dims.includes('key'),
          identity: r.dims.includes('identity'),
          tag: r.dims.includes('tag'),
          tags: r.dims.includes('tags') && !r.dims.includes('tag'),
          ...(r.dims.includes('region') && { region: true }),
          ...(r.granularity && { granularity: r.granularity }),
        },
      };
      if (a !== undefined) q.startHour = Math.min(a, b);
      if (r.externalId !== undefined) q.externalId = r.externalId;
      if (r.keyIds !== undefined) q.keyIds = r.keyIds;
      if (r.tags !== undefined) q.tags = r.tags;
      if (r.regions !== undefined) q.regions = r.regions;
      if (r.limit !== undefined) q.limit = r.limit;
      if (r.orderBy !== undefined && (r.orderBy !== 'time' || r.granularity)) q.orderBy = r.orderBy;
      if (r.order !== undefined) q.order = r.order;
      return q;
    });

  it('for random events and random queries', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 60 }),
        queryArb,
        fc.integer({ min: 5, max: 400 }),
        (events, query, maxRows) => {
          const expected = oracle(events, query, { now: BASE, maxRows });
          const actual = rowsFromEvents(events, query, { maxRows, lowestHour: hourOf(BASE) - 30 });
          if (expected.ok) expect(actual).toEqual({ ok: true, rows: expected.rows });
          else expect(actual).toEqual(expected);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTCOME_FIELDS, type OrderBy } from '@va/contracts';
import type { Cell, ParsedQuery } from '../types';
import { buildRows } from './buildRows';
import { counterValue, topGroupsOf, topThreshold } from './top-groups';

const MAX_ROWS = 100_000;

type QueryChanges = Omit<Partial<ParsedQuery>, 'groupBy'> & { groupBy?: Partial<ParsedQuery['groupBy']> };

function query(extra: QueryChanges = {}): ParsedQuery {
  return {
    apiId: 'api',
    startHour: 490_000,
    endHour: 490_010,
    orderBy: 'total',
    order: 'desc',
    limit: 10,
    ...extra,
    groupBy: { key: false, identity: true, tag: false, tags: false, ...extra.groupBy },
  };
}

describe('topGroupsOf', () => {
  it('holds for one slice, a counter in desc order, a limit within the cap, groups that are rows', () => {
    expect(topGroupsOf(query(), MAX_ROWS)).toEqual({ counter: 9, limit: 10 });
    expect(
      topGroupsOf(query({ orderBy: 'valid', groupBy: { identity: false, key: true } }), MAX_ROWS),
    ).toEqual({
      counter: 0,
      limit: 10,
    });
    expect(topGroupsOf(query({ groupBy: { identity: false, tags: true } }), MAX_ROWS)).toBeDefined();
  });

  it('does not hold otherwise', () => {
    expect(topGroupsOf(query({ groupBy: { granularity: 'day' } }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ order: 'asc' }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ order: undefined }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ orderBy: 'time' }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ orderBy: undefined }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ limit: undefined }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ limit: 11 }), 10)).toBeUndefined();
    expect(topGroupsOf(query({ groupBy: { identity: false, tag: true } }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ groupBy: { identity: false } }), MAX_ROWS)).toBeUndefined();
    // Many tag-set codes (a tag set in each region) make one row of a region.
    expect(topGroupsOf(query({ groupBy: { identity: false, region: true } }), MAX_ROWS)).toBeUndefined();
    expect(topGroupsOf(query({ groupBy: { region: true } }), MAX_ROWS)).toBeUndefined();
  });
});

describe('topThreshold', () => {
  it('is the limit-th largest value, or -Infinity when every value stays', () => {
    expect(topThreshold(Float64Array.of(5, 1, 9, 9, 3), 2)).toBe(9);
    expect(topThreshold(Float64Array.of(5, 1, 9, 9, 3), 3)).toBe(5);
    expect(topThreshold(Float64Array.of(5, 1), 2)).toBe(-Infinity);
  });

  it('equals the limit-th largest of the sorted values (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 70 }),
        (values, limit) => {
          const sorted = [...values].sort((a, b) => b - a);
          const expected = values.length <= limit ? -Infinity : sorted[limit - 1];
          expect(topThreshold(Float64Array.from(values), limit)).toBe(expected);
        },
      ),
    );
  });
});

describe('the largest groups give the same first rows as all of them', () => {
  // Groups with few distinct values (many ties), zeros included (a group counting nothing makes no row).
  const group = fc.record({
    key: fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'ka', 'kb', 'kc'),
    counts: fc.array(fc.constantFrom(0, 0, 1, 2, 3), { minLength: 9, maxLength: 9 }),
  });
  const orderBy = fc.constantFrom<Exclude<OrderBy, 'time'>>('total', ...OUTCOME_FIELDS);

  it('for every counter and limit (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(group, { selector: (g) => g.key, maxLength: 12 }),
        orderBy,
        fc.integer({ min: 1, max: 14 }),
        (groups, by, limit) => {
          const q = query({ orderBy: by, limit, groupBy: { identity: false, key: true } });
          const top = topGroupsOf(q, MAX_ROWS)!;
          const cells: Cell[] = groups.map((g) => ({ slice: null, keyId: g.key, counts: g.counts }));
          const values = Float64Array.from(cells, (c) => counterValue(c.counts, top.counter));
          const threshold = topThreshold(values, top.limit);
          const kept = cells.filter((_, n) => values[n]! >= threshold);
          const options = { slices: null, trimLeading: false, maxRows: MAX_ROWS };
          expect(buildRows(q, kept, options)).toEqual(buildRows(q, cells, options));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

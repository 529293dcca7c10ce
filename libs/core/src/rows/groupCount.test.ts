import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../time';
import type { Cell, ParsedQuery } from '../types';
import { buildRows } from './buildRows';
import { countedCells, groupCount } from './groupCount';

const groupBy = (g: Partial<ParsedQuery['groupBy']>): ParsedQuery => ({
  apiId: 'api',
  startHour: 0,
  endHour: 0,
  groupBy: { key: false, identity: false, tag: false, tags: false, ...g },
});
const counts = (v: number) => [v, 0, 0, 0, 0, 0, 0, 0, 0];
const alice = { id: 'i1', externalId: 'alice' };
const cells: Cell[] = [
  { slice: null, keyId: 'a', tags: ['x', 'y'], identity: alice, counts: counts(1) },
  { slice: null, keyId: 'a', tags: ['x'], counts: counts(2) },
  { slice: null, keyId: 'b', tags: [], identity: { ...alice }, counts: counts(1) },
  { slice: null, keyId: 'c', tags: ['z'], identity: { id: 'i2', externalId: 'bob' }, counts: counts(0) },
];

describe('groupCount', () => {
  it('counts the groups buildRows makes rows for, for every grouping', () => {
    const cases: [Partial<ParsedQuery['groupBy']>, number][] = [
      [{}, 1],
      [{ key: true }, 2], // c counts nothing
      [{ identity: true }, 1], // one identity with data; the cell without identity is left out
      [{ tag: true }, 2], // x, y; untagged cells in none
      [{ tags: true }, 3], // [x,y], [x], []
      [{ key: true, tag: true }, 2], // a/x, a/y
      [{ key: true, identity: true, tags: true }, 2],
    ];
    for (const [g, expected] of cases) {
      const q = groupBy(g);
      expect(groupCount(q, cells), JSON.stringify(g)).toBe(expected);
      const built = buildRows(q, cells, { slices: null, trimLeading: false, maxRows: 1000 });
      expect(built.ok && built.rows.length, JSON.stringify(g)).toBe(expected);
    }
  });

  it('merges cells of one tag set in several regions under tags, and leaves cells without region out of region', () => {
    const regional: Cell[] = [
      { slice: null, keyId: 'a', tags: ['x'], region: 'eu', counts: counts(1) },
      { slice: null, keyId: 'a', tags: ['x'], region: 'us', counts: counts(2) },
      { slice: null, keyId: 'a', tags: ['x'], counts: counts(4) },
      { slice: null, keyId: 'b', tags: [], region: 'eu', counts: counts(8) },
    ];
    const rows = (g: Partial<ParsedQuery['groupBy']>) => {
      const built = buildRows(groupBy(g), regional, { slices: null, trimLeading: false, maxRows: 1000 });
      if (!built.ok) throw new Error('over the cap');
      expect(groupCount(groupBy(g), regional)).toBe(built.rows.length);
      return built.rows.map((r) => [r.tags ?? r.tag ?? r.keyId, r.region, r.total]);
    };
    expect(rows({ tags: true })).toEqual([
      [[], undefined, 8],
      [['x'], undefined, 7],
    ]);
    expect(rows({ region: true })).toEqual([
      [undefined, 'eu', 9],
      [undefined, 'us', 2],
    ]);
    expect(rows({ tag: true, region: true })).toEqual([
      ['x', 'eu', 1],
      ['x', 'us', 2],
    ]);
    expect(rows({ key: true, region: true })).toEqual([
      ['a', 'eu', 1],
      ['a', 'us', 2],
      ['b', 'eu', 8],
    ]);
  });

  it('is 0 for a grouped query without data, 1 for an ungrouped one', () => {
    expect(groupCount(groupBy({ key: true }), [])).toBe(0);
    expect(groupCount(groupBy({ granularity: 'hour' }), [])).toBe(1);
  });

  it('keeps only the cells that count something', () => {
    expect(countedCells(cells).map((c) => c.keyId)).toEqual(['a', 'a', 'b']);
    expect(countedCells([{ slice: HOUR_MS, counts: [0, 0, 0, 0, 0, 0, 0, 0, 1] }])).toHaveLength(1);
  });
});

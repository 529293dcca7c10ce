import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, sliceStarts } from '../time';
import type { Cell, ParsedQuery } from '../types';
import { buildRows, type BuildRowsOptions } from './buildRows';

const H0 = 490_000; // an hour index (2025-11-24)
const T0 = H0 * HOUR_MS;

function query(groupBy: string[] = [], extra: Partial<ParsedQuery> = {}): ParsedQuery {
  const granularity = groupBy.find((g) => g === 'hour' || g === 'day' || g === 'month');
  return {
    apiId: 'api',
    startHour: H0,
    endHour: H0 + 3,
    groupBy: {
      key: groupBy.includes('key'),
      identity: groupBy.includes('identity'),
      tag: groupBy.includes('tag'),
      tags: groupBy.includes('tags'),
      ...(granularity === 'hour' || granularity === 'day' || granularity === 'month' ? { granularity } : {}),
    },
    ...extra,
  };
}

/** counts with `valid` = v, `notFound` = n */
const counts = (v: number, n = 0) => [v, n, 0, 0, 0, 0, 0, 0, 0];
const cell = (fields: Partial<Cell> & { v?: number; n?: number }): Cell => {
  const { v = 1, n = 0, ...rest } = fields;
  return { slice: null, counts: counts(v, n), ...rest };
};
const zeros = {
  valid: 0,
  notFound: 0,
  forbidden: 0,
  usageExceeded: 0,
  rateLimited: 0,
  unauthorized: 0,
  disabled: 0,
};
const row = (v: number, n = 0, extra: object = {}) => ({
  ...zeros,
  valid: v,
  notFound: n,
  insufficientPermissions: 0,
  expired: 0,
  total: v + n,
  ...extra,
});

const hours = sliceStarts(H0, H0 + 3, 'hour'); // 4 hour slices
const ungrouped: BuildRowsOptions = { slices: null, trimLeading: false, maxRows: 100_000 };
const hourly: BuildRowsOptions = { slices: hours, trimLeading: false, maxRows: 100_000 };

function rows(q: ParsedQuery, cells: Cell[], options: BuildRowsOptions) {
  const result = buildRows(q, cells, options);
  if (!result.ok) throw new Error(result.error.message);
  return result.rows;
}

describe('buildRows: no groupBy', () => {
  it('gives exactly one row without time, summing every cell', () => {
    expect(
      rows(query(), [cell({ v: 2 }), cell({ n: 3, v: 0 }), cell({ v: 1, keyId: 'k' })], ungrouped),
    ).toEqual([row(3, 3)]);
  });

  it('gives one all-zero row when nothing matched', () => {
    expect(rows(query(), [], ungrouped)).toEqual([row(0)]);
    expect(rows(query([], { startHour: undefined }), [], { ...ungrouped, trimLeading: true })).toEqual([
      row(0),
    ]);
  });

  it('puts time first, then the nine counters and total, and no group fields', () => {
    const [only] = rows(query(), [cell({ v: 1 })], ungrouped);
    expect(Object.keys(only!)).toEqual([
      'valid',
      'notFound',
      'forbidden',
      'usageExceeded',
      'rateLimited',
      'unauthorized',
      'disabled',
      'insufficientPermissions',
      'expired',
      'total',
    ]);
  });
});

describe('buildRows: time granularity only', () => {
  it('gives every slice of the range, zeros included', () => {
    const result = rows(query(['hour']), [cell({ slice: hours[1]!, v: 2 })], hourly);
    expect(result).toEqual([
      row(0, 0, { time: hours[0] }),
      row(2, 0, { time: hours[1] }),
      row(0, 0, { time: hours[2] }),
      row(0, 0, { time: hours[3] }),
    ]);
    expect(Object.keys(result[0]!)[0]).toBe('time');
  });

  it('without a start, drops the slices before the first that holds data', () => {
    const q = query(['hour'], { startHour: undefined });
    const result = rows(q, [cell({ slice: hours[2]!, v: 1 })], { ...hourly, trimLeading: true });
    expect(result.map((r) => r.time)).toEqual([hours[2], hours[3]]);
  });

  it('without a start and without data gives []', () => {
    const q = query(['hour'], { startHour: undefined });
    expect(rows(q, [], { ...hourly, trimLeading: true })).toEqual([]);
    expect(rows(q, [cell({ slice: hours[0]!, v: 0 })], { ...hourly, trimLeading: true })).toEqual([]);
  });

  it('sums cells of one slice', () => {
    const cells = [cell({ slice: hours[0]!, v: 1 }), cell({ slice: hours[0]!, n: 2, v: 0, keyId: 'x' })];
    expect(rows(query(['hour']), cells, hourly)[0]).toEqual(row(1, 2, { time: hours[0] }));
  });

  it('works with day and month slices', () => {
    const days = sliceStarts(H0, H0 + 48, 'day');
    const q = query(['day'], { endHour: H0 + 48 });
    const result = rows(q, [cell({ slice: days[1]!, v: 5 })], { ...hourly, slices: days });
    expect(result.map((r) => [r.time, r.total])).toEqual(days.map((d, i) => [d, i === 1 ? 5 : 0]));
  });
});

describe('buildRows: groups', () => {
  it('groupBy key: a row per key that counted something', () => {
    const cells = [cell({ keyId: 'k2', v: 1 }), cell({ keyId: 'k1', v: 2 }), cell({ keyId: 'k3', v: 0 })];
    expect(rows(query(['key']), cells, ungrouped)).toEqual([
      row(2, 0, { keyId: 'k1' }),
      row(1, 0, { keyId: 'k2' }),
    ]);
  });

  it('groupBy key with a granularity: every slice for every present key', () => {
    const cells = [
      cell({ keyId: 'b', slice: hours[3]!, v: 1 }),
      cell({ keyId: 'a', slice: hours[0]!, v: 1 }),
    ];
    const result = rows(query(['key', 'hour']), cells, hourly);
    expect(result.map((r) => `${(r.time! - T0) / HOUR_MS}${r.keyId}${r.total}`)).toEqual([
      '0a1',
      '0b0',
      '1a0',
      '1b0',
      '2a0',
      '2b0',
      '3a0',
      '3b1',
    ]);
  });

  it('trims leading slices across all groups, not per group', () => {
    const cells = [
      cell({ keyId: 'b', slice: hours[3]!, v: 1 }),
      cell({ keyId: 'a', slice: hours[2]!, v: 1 }),
    ];
    const q = query(['key', 'hour'], { startHour: undefined });
    const result = rows(q, cells, { ...hourly, trimLeading: true });
    expect(result.map((r) => [r.time, r.keyId])).toEqual([
      [hours[2], 'a'],
      [hours[2], 'b'],
      [hours[3], 'a'],
      [hours[3], 'b'],
    ]);
  });

  it('groupBy identity: leaves out cells without identity; identity is {id, externalId}', () => {
    const alice = { id: 'id_a', externalId: 'alice' };
    const cells = [cell({ identity: alice, v: 1 }), cell({ v: 5 }), cell({ identity: { ...alice }, v: 2 })];
    const result = rows(query(['identity']), cells, ungrouped);
    expect(result).toEqual([row(3, 0, { identity: { id: 'id_a', externalId: 'alice' } })]);
    expect(result[0]!.identity).not.toBe(alice); // a copy, not the reader's object
  });

  it('groupBy identity: cells without identity do not extend a range without start', () => {
    const q = query(['identity', 'hour'], { startHour: undefined });
    const cells = [
      cell({ slice: hours[0]!, v: 1 }),
      cell({ identity: { id: 'i', externalId: 'e' }, slice: hours[2]! }),
    ];
    expect(rows(q, cells, { ...hourly, trimLeading: true }).map((r) => r.time)).toEqual([hours[2], hours[3]]);
  });

  it('groupBy identity: one id with two externalIds gives two rows, ordered by externalId', () => {
    const cells = [
      cell({ identity: { id: 'i', externalId: 'z' }, v: 1 }),
      cell({ identity: { id: 'i', externalId: 'a' }, v: 2 }),
    ];
    expect(rows(query(['identity']), cells, ungrouped).map((r) => r.identity!.externalId)).toEqual([
      'a',
      'z',
    ]);
  });

  it('groupBy tag: a cell counts in the row of each of its tags; untagged cells in none', () => {
    const cells = [
      cell({ tags: ['a', 'b'], v: 1 }),
      cell({ tags: ['b'], v: 2 }),
      cell({ tags: [], v: 4 }),
      cell({ v: 8 }),
    ];
    expect(rows(query(['tag']), cells, ungrouped)).toEqual([
      row(1, 0, { tag: 'a' }),
      row(3, 0, { tag: 'b' }),
    ]);
  });

  it('groupBy tag: a repeated tag counts once', () => {
    expect(rows(query(['tag']), [cell({ tags: ['a', 'a'], v: 1 })], ungrouped)).toEqual([
      row(1, 0, { tag: 'a' }),
    ]);
  });

  it('groupBy tags: a row per tag set, [] included and first', () => {
    const cells = [
      cell({ tags: ['a', 'b'], v: 1 }),
      cell({ tags: [], v: 2 }),
      cell({ tags: ['a'], v: 4 }),
      cell({ tags: ['a', 'b'], v: 8 }),
    ];
    expect(rows(query(['tags']), cells, ungrouped)).toEqual([
      row(2, 0, { tags: [] }),
      row(4, 0, { tags: ['a'] }),
      row(9, 0, { tags: ['a', 'b'] }),
    ]);
  });

  it('combines key x identity x tag x slice, group fields after the counters', () => {
    const identity = { id: 'i1', externalId: 'e1' };
    const cells = [cell({ keyId: 'k', identity, tags: ['t1', 't2'], slice: hours[0]!, v: 1 })];
    const result = rows(query(['key', 'identity', 'tag', 'hour']), cells, hourly);
    expect(result).toHaveLength(8); // 2 tags x 4 hours
    expect(Object.keys(result[0]!)).toEqual([
      'time',
      'valid',
      'notFound',
      'forbidden',
      'usageExceeded',
      'rateLimited',
      'unauthorized',
      'disabled',
      'insufficientPermissions',
      'expired',
      'total',
      'keyId',
      'identity',
      'tag',
    ]);
    expect(result[0]).toEqual(row(1, 0, { time: hours[0], keyId: 'k', identity, tag: 't1' }));
  });

  it('without any count gives no group rows', () => {
    expect(rows(query(['key', 'hour']), [], hourly)).toEqual([]);
    expect(rows(query(['key']), [cell({ keyId: 'k', v: 0 })], ungrouped)).toEqual([]);
  });
});

describe('buildRows: order', () => {
  const keyCells = [
    cell({ keyId: 'b', v: 5, n: 1 }),
    cell({ keyId: 'a', v: 1, n: 1 }),
    cell({ keyId: 'c', v: 5, n: 0 }),
    cell({ keyId: 'B', v: 0, n: 3 }),
    cell({ keyId: 'é', v: 2 }),
  ];
  const keys = (q: ParsedQuery, cells = keyCells, options = ungrouped) =>
    rows(q, cells, options).map((r) => r.keyId);

  it('compares strings by UTF-16 code units, not by locale', () => {
    expect(keys(query(['key']))).toEqual(['B', 'a', 'b', 'c', 'é']);
  });

  it('order=desc without orderBy reverses the default order', () => {
    expect(keys(query(['key'], { order: 'desc' }))).toEqual(['é', 'c', 'b', 'a', 'B']);
    const cells = [cell({ keyId: 'a', slice: hours[0]! }), cell({ keyId: 'b', slice: hours[3]! })];
    const result = rows(query(['key', 'hour'], { order: 'desc' }), cells, hourly);
    expect(result.map((r) => `${(r.time! - T0) / HOUR_MS}${r.keyId}`)).toEqual([
      '3b',
      '3a',
      '2b',
      '2a',
      '1b',
      '1a',
      '0b',
      '0a',
    ]);
  });

  it('order=asc without orderBy is the default order', () => {
    expect(keys(query(['key'], { order: 'asc' }))).toEqual(['B', 'a', 'b', 'c', 'é']);
  });

  it('orderBy a counter, ties in the default order', () => {
    expect(keys(query(['key'], { orderBy: 'valid' }))).toEqual(['B', 'a', 'é', 'b', 'c']);
    expect(keys(query(['key'], { orderBy: 'valid', order: 'desc' }))).toEqual(['b', 'c', 'é', 'a', 'B']);
    expect(keys(query(['key'], { orderBy: 'notFound', order: 'desc' }))).toEqual(['B', 'a', 'b', 'c', 'é']);
    expect(keys(query(['key'], { orderBy: 'total', order: 'desc' }))).toEqual(['b', 'c', 'B', 'a', 'é']);
  });

  it('orderBy a counter puts zero-filled rows in default order among other zeros', () => {
    const cells = [
      cell({ keyId: 'a', slice: hours[1]!, v: 2 }),
      cell({ keyId: 'b', slice: hours[2]!, v: 1 }),
    ];
    const asc = rows(query(['key', 'hour'], { orderBy: 'valid' }), cells, hourly);
    expect(asc.map((r) => `${(r.time! - T0) / HOUR_MS}${r.keyId}${r.valid}`)).toEqual([
      '0a0',
      '0b0',
      '1b0',
      '2a0',
      '3a0',
      '3b0',
      '2b1',
      '1a2',
    ]);
    const desc = rows(query(['key', 'hour'], { orderBy: 'valid', order: 'desc', limit: 3 }), cells, hourly);
    expect(desc.map((r) => `${(r.time! - T0) / HOUR_MS}${r.keyId}${r.valid}`)).toEqual(['1a2', '2b1', '0a0']);
  });

  it('orderBy time desc keeps groups ascending within a slice', () => {
    const cells = [cell({ keyId: 'a', slice: hours[0]! }), cell({ keyId: 'b', slice: hours[0]! })];
    const result = rows(query(['key', 'hour'], { orderBy: 'time', order: 'desc' }), cells, hourly);
    expect(result.map((r) => `${(r.time! - T0) / HOUR_MS}${r.keyId}`)).toEqual([
      '3a',
      '3b',
      '2a',
      '2b',
      '1a',
      '1b',
      '0a',
      '0b',
    ]);
  });

  it('orders by keyId, then identity, then tag', () => {
    const i1 = { id: 'i1', externalId: 'x' };
    const i2 = { id: 'i2', externalId: 'x' };
    const cells = [
      cell({ keyId: 'k2', identity: i1, tags: ['t'] }),
      cell({ keyId: 'k1', identity: i2, tags: ['s', 't'] }),
      cell({ keyId: 'k1', identity: i1, tags: ['t'] }),
    ];
    const result = rows(query(['key', 'identity', 'tag']), cells, ungrouped);
    expect(result.map((r) => `${r.keyId}/${r.identity!.id}/${r.tag}`)).toEqual([
      'k1/i1/t',
      'k1/i2/s',
      'k1/i2/t',
      'k2/i1/t',
    ]);
  });

  it('orders tag sets by their members joined with ","', () => {
    const cells = [
      cell({ tags: ['a', 'b'] }),
      cell({ tags: ['a-b'] }),
      cell({ tags: ['a'] }),
      cell({ tags: [] }),
    ];
    expect(rows(query(['tags']), cells, ungrouped).map((r) => r.tags!.join(','))).toEqual([
      '',
      'a',
      'a,b',
      'a-b',
    ]);
  });
});

describe('buildRows: limit and row cap', () => {
  const cells = ['a', 'b', 'c', 'd'].map((keyId, i) => cell({ keyId, v: i + 1 }));

  it('limit keeps the first rows after ordering', () => {
    const result = rows(query(['key'], { limit: 2, orderBy: 'valid', order: 'desc' }), cells, ungrouped);
    expect(result.map((r) => r.keyId)).toEqual(['d', 'c']);
    expect(rows(query(['key'], { limit: 10 }), cells, ungrouped)).toHaveLength(4);
  });

  it('refuses a result over the cap', () => {
    const result = buildRows(query(['key']), cells, { ...ungrouped, maxRows: 3 });
    expect(result).toEqual({
      ok: false,
      error: { location: 'query.limit', message: expect.any(String), fix: 'narrow the range or set a limit' },
    });
  });

  it('counts zero-filled rows against the cap', () => {
    const oneHour = cells.map((c) => ({ ...c, slice: hours[0]! }));
    const result = buildRows(query(['key', 'hour']), oneHour, { ...hourly, maxRows: 15 }); // 4 keys x 4 hours
    expect(result.ok).toBe(false);
  });

  it('accepts a result of exactly the cap, and a limit that brings it under', () => {
    expect(buildRows(query(['key']), cells, { ...ungrouped, maxRows: 4 }).ok).toBe(true);
    expect(buildRows(query(['key'], { limit: 3 }), cells, { ...ungrouped, maxRows: 3 }).ok).toBe(true);
    expect(buildRows(query(['key'], { limit: 4 }), cells, { ...ungrouped, maxRows: 3 }).ok).toBe(false);
  });
});

describe('buildRows: misuse is an error, never a wrong answer', () => {
  it('throws on a cell outside the slices', () => {
    expect(() => buildRows(query(['hour']), [cell({ slice: T0 - HOUR_MS })], hourly)).toThrow(/slice/);
    expect(() => buildRows(query(['day']), [cell({ slice: T0 + DAY_MS })], hourly)).toThrow(/slice/);
  });

  it('throws on a granularity without slices', () => {
    expect(() => buildRows(query(['hour']), [], ungrouped)).toThrow(/slices/);
  });

  it('throws when a grouped dimension is missing from a cell', () => {
    expect(() => buildRows(query(['key']), [cell({ v: 1 })], ungrouped)).toThrow(/keyId/);
    expect(() => buildRows(query(['tags']), [cell({ v: 1 })], ungrouped)).toThrow(/tags/);
  });
});

describe('buildRows: top-N over many cells', () => {
  // Speed belongs to the benchmarks (npm run bench); here the top-N path must pick exactly the rows a full sort
  // would put first, on an input large enough to exercise its selection instead of a plain sort.
  it('keeps the same first 10 rows as the unlimited answer (100k cells, 20k identities x 4 hours)', () => {
    const identities = Array.from({ length: 20_000 }, (_, i) => ({
      id: `id_${i}`,
      externalId: `user${i}@x`,
    }));
    const cells: Cell[] = [];
    for (let i = 0; i < 100_000; i++) {
      cells.push({
        slice: hours[i % 4]!,
        identity: identities[i % identities.length]!,
        counts: [(i * 7919) % 13, i % 3, 0, 0, 1, 0, 0, 0, 0],
      });
    }
    const cases: [ParsedQuery, ParsedQuery, BuildRowsOptions][] = [
      [
        query(['identity'], { limit: 10, orderBy: 'total', order: 'desc' }),
        query(['identity'], { orderBy: 'total', order: 'desc' }),
        ungrouped,
      ],
      [
        query(['identity', 'hour'], { limit: 10, orderBy: 'valid', order: 'desc' }),
        query(['identity', 'hour'], { orderBy: 'valid', order: 'desc' }),
        hourly,
      ],
    ];
    for (const [limited, unlimited, options] of cases) {
      const top = buildRows(limited, cells, options);
      const all = buildRows(unlimited, cells, options);
      expect(top.ok && all.ok).toBe(true);
      if (!top.ok || !all.ok) return;
      expect(top.rows).toHaveLength(10);
      expect(top.rows).toEqual(all.rows.slice(0, 10));
    }
  });
});

describe('buildRows: groups of the whole range (groupCells)', () => {
  it('gives every group with data in the range its rows in the slices read, zeros included', () => {
    const q = query(['key', 'hour'], { limit: 3 });
    const whole = [cell({ keyId: 'b', v: 4 }), cell({ keyId: 'a', v: 1 }), cell({ keyId: 'c', v: 0 })];
    const first = [cell({ slice: hours[0]!, keyId: 'b', v: 2 })];
    const result = rows(q, first, { ...hourly, slices: hours.slice(0, 2), groupCells: whole });
    expect(result).toEqual([
      row(0, 0, { time: hours[0], keyId: 'a' }),
      row(2, 0, { time: hours[0], keyId: 'b' }),
      row(0, 0, { time: hours[1], keyId: 'a' }),
    ]);
  });
});

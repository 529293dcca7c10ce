import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, dayOfHour, hourOf, keptAt, monthOfHour, monthStart } from '@va/core';
import {
  bucketsOfHour,
  closedForParts,
  expand,
  NO_EXPIRY,
  PARTS_MIN_ROWS,
  TupleCounter,
  type WriteContext,
} from './aggregate';
import { partsListSuffix, shardOf, type Cube } from './keys';
import { SHARD_PARTS_MIN_ROWS } from './open-f-parts';
import { decodeSection, NO_IDENTITY } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';

const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const now = Date.UTC(2025, 5, 15, 12, 30);
const nowHour = hourOf(now);
const horizons = (cmp = -1): WriteContext => ({ now, retention, cmp });

describe('bucketsOfHour', () => {
  it('writes a fresh, uncompacted hour to its hour bucket only, without expiry (set by compaction)', () => {
    expect(bucketsOfHour(nowHour, horizons())).toEqual([{ r: 'h', t: nowHour, expireAt: NO_EXPIRY }]);
  });

  it('writes a compacted hour to the hour and its day and month rollups', () => {
    const h = nowHour - 30;
    const buckets = bucketsOfHour(h, horizons(nowHour - 2));
    const m = monthOfHour(h);
    expect(buckets).toEqual([
      { r: 'h', t: h, expireAt: (h + 1) * HOUR_MS + retention.hourMs },
      { r: 'd', t: dayOfHour(h), expireAt: (dayOfHour(h) + 1) * DAY_MS + retention.dayMs },
      { r: 'm', t: m, expireAt: monthStart(m + 1) + retention.monthMs },
    ]);
  });

  it('treats cmp as inclusive', () => {
    expect(bucketsOfHour(nowHour - 5, horizons(nowHour - 5)).map((b) => b.r)).toEqual(['h', 'd', 'm']);
    expect(bucketsOfHour(nowHour - 4, horizons(nowHour - 5)).map((b) => b.r)).toEqual(['h']);
  });

  it('keeps an uncompacted hour past hour retention in its hour bucket until compaction', () => {
    const h = hourOf(now - 40 * DAY_MS);
    expect(bucketsOfHour(h, horizons())).toEqual([{ r: 'h', t: h, expireAt: NO_EXPIRY }]);
    expect(bucketsOfHour(hourOf(now - 500 * DAY_MS), horizons()).map((b) => b.r)).toEqual(['h']);
  });

  it('sends a compacted hour past hour retention to day and month rollups only', () => {
    const h = hourOf(now - 40 * DAY_MS);
    expect(bucketsOfHour(h, horizons(nowHour - 2)).map((b) => b.r)).toEqual(['d', 'm']);
  });

  it('sends a compacted hour past day retention to the month rollup only', () => {
    const h = hourOf(now - 500 * DAY_MS);
    expect(bucketsOfHour(h, horizons(nowHour - 2)).map((b) => b.r)).toEqual(['m']);
  });

  it('writes nothing past month retention, compacted or not', () => {
    expect(bucketsOfHour(hourOf(now - 6 * 366 * DAY_MS), horizons())).toEqual([]);
    expect(bucketsOfHour(hourOf(now - 6 * 366 * DAY_MS), horizons(nowHour - 2))).toEqual([]);
  });

  it('keeps a compacted hour exactly at its horizon out (expiry must lie in the future)', () => {
    const h = hourOf(now - retention.hourMs) - 1; // ends before now - retention
    expect(bucketsOfHour(h, horizons(nowHour - 2)).map((b) => b.r)).not.toContain('h');
  });

  it('never writes a day without its month, nor a compacted hour without its day, while kept, whatever the retentions (property)', () => {
    // Readers check a month for all its days, and a day for its compacted hours (rollup-children.ts).
    const days = fc.integer({ min: 0, max: 3 * 366 });
    fc.assert(
      fc.property(days, days, days, fc.integer({ min: 0, max: 4 * 366 * 24 }), (h, d, m, age) => {
        const r = { hourMs: h * DAY_MS, dayMs: d * DAY_MS, monthMs: m * DAY_MS };
        const hour = nowHour - age;
        const written = bucketsOfHour(hour, { now, retention: r, cmp: nowHour - 1 });
        const monthKept = keptAt('m', monthOfHour(hour), r, now);
        if (written.some((b) => b.r === 'd') && monthKept)
          expect(written.some((b) => b.r === 'm')).toBe(true);
        const dayKept = keptAt('d', dayOfHour(hour), r, now);
        const compacted = hour <= nowHour - 1;
        if (compacted && written.some((b) => b.r === 'h') && dayKept)
          expect(written.some((b) => b.r === 'd')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('TupleCounter + expand', () => {
  it('adds each distinct tuple to the five cubes with base-36 codes and parts', () => {
    const c = new TupleCounter();
    c.add(nowHour, 40, 3, 0, 0);
    c.add(nowHour, 40, 3, 0, 0);
    c.add(nowHour, 1, -1, 37, 4);
    expect(c.size).toBe(2);
    const inc = expand(c, horizons());
    expect(inc.events).toBe(3);
    expect(inc.required).toEqual({ k: 41, i: 4, s: 38 });
    expect(inc.buckets).toHaveLength(1);
    const cubes = Object.fromEntries([...inc.buckets[0]!.cubes].map(([s, f]) => [s, Object.fromEntries(f)]));
    expect(cubes).toEqual({
      t: { '0': 2, '4': 1 },
      'k:1': { '14:0': 2 }, // 40 = "14" in base 36, part 40 >> 5 = 1
      'k:0': { '1:4': 1 },
      's:0': { '0:0': 2 },
      's:1': { '11:4': 1 }, // 37 = "11"
      'i:0': { '3:0': 2 },
      'f:3': { '14.0:0': 2 },
      'f:_': { '1.11:4': 1 },
    });
  });

  it('keeps different hours apart and merges rollups of a compacted hour', () => {
    const c = new TupleCounter();
    const h1 = nowHour - 3;
    const h2 = nowHour - 2; // same day as h1 here (12:30 now)
    c.add(h1, 0, -1, 0, 0, 5);
    c.add(h2, 0, -1, 0, 0, 7);
    const inc = expand(c, horizons(h2));
    const summary = inc.buckets.map((b) => `${b.r}${b.t}=${b.cubes.get('t')!.get('0')}`).sort();
    expect(summary).toEqual(
      [`h${h1}=5`, `h${h2}=7`, `d${dayOfHour(h1)}=12`, `m${monthOfHour(h1)}=12`].sort(),
    );
  });

  it('writes a closed bucket as parts once its hours together hold minRows tuples, not before (#41)', () => {
    // Ten days ago, compacted: each hour goes to its hour and its day. Three hours of 6 distinct tuples
    // each: no hour reaches 16 rows, their day's k and f do (18 keys); two of those hours do not.
    const day = dayOfHour(nowHour - 240);
    const hours = [0, 1, 2].map((n) => day * 24 + n);
    const counter = (count: number) => {
      const c = new TupleCounter();
      for (const [m, h] of hours.slice(0, count).entries())
        for (let k = 0; k < 6; k++) c.add(h, m * 6 + k, -1, 0, 0);
      return c;
    };
    const partsOf = (count: number) =>
      expand(counter(count), horizons(nowHour - 2)).buckets.map((b) => `${b.r}${b.t}:${[...b.parts.keys()]}`);
    expect(partsOf(3)).toContain(`d${day}:L:k,L:f`);
    expect(partsOf(3).filter((b) => b.startsWith('h'))).toEqual(hours.map((h) => `h${h}:`));
    expect(partsOf(2).every((b) => b.endsWith(':'))).toBe(true);
  });

  it("writes a busy open hour's f as a part per identity shard, its other cubes and a quiet shard as hash fields", () => {
    // docs/store-v2.md "An open hour's f as parts per identity shard": one list of the whole f per batch made an
    // identity's read of the open hour read every identity's parts.
    const c = new TupleCounter();
    // Shard 0 (identities 0-4) and no identity: many rows each; identity 40 (shard 1): one row.
    for (let n = 0; n < 4 * PARTS_MIN_ROWS; n++) c.add(nowHour, n % 7, n % 3 === 0 ? -1 : n % 5, n, n % 2);
    c.add(nowHour, 3, 40, 1, 0);
    const [bucket, ...rest] = expand(c, horizons()).buckets;
    expect(rest).toEqual([]);
    expect(bucket).toMatchObject({ r: 'h', t: nowHour, expireAt: NO_EXPIRY });
    expect([...bucket!.parts.keys()].sort()).toEqual([partsListSuffix('f', '0'), partsListSuffix('f', '_')]);
    const shard0 = decodeSection(bucket!.parts.get(partsListSuffix('f', '0'))!);
    expect(new Set(shard0.dims[0])).toEqual(new Set([0, 1, 2, 3, 4]));
    expect([...bucket!.cubes.keys()].filter((suffix) => suffix.startsWith('f'))).toEqual(['f:14']); // 40 in base 36
    expect([...bucket!.cubes.keys()]).toEqual(
      expect.arrayContaining(['t', 'k:0', 'i:0', 'i:1', 's:0', 's:1']),
    );
  });

  it("keeps an open hour's f as hash fields in a batch of fewer tuples than parts need", () => {
    const c = new TupleCounter();
    for (let n = 0; n < PARTS_MIN_ROWS - 1; n++) c.add(nowHour, n, 0, 0, 0);
    const [bucket] = expand(c, horizons()).buckets;
    expect(bucket!.parts.size).toBe(0);
    expect(bucket!.cubes.get('f:0')?.size).toBe(PARTS_MIN_ROWS - 1);
  });

  it('counts nothing for tuples outside every retention', () => {
    const c = new TupleCounter();
    c.add(hourOf(now - 7 * 366 * DAY_MS), 0, -1, 0, 0);
    const inc = expand(c, horizons());
    expect(inc.buckets).toEqual([]);
    expect(inc.events).toBe(0);
  });
});

describe('expand (property)', () => {
  /** The naive definition: every tuple adds its count to the five cubes of each target bucket. */
  function naive(tuples: [number, number, number, number, number, number][], h: WriteContext) {
    const out = new Map<string, number>();
    const inc = (key: string, n: number) => out.set(key, (out.get(key) ?? 0) + n);
    for (const [hour, k, i, s, o, n] of tuples) {
      for (const b of bucketsOfHour(hour, h)) {
        const at = `${b.r}${b.t}@${b.expireAt}`;
        const k36 = k.toString(36);
        const s36 = s.toString(36);
        inc(`${at} t ${o}`, n);
        inc(`${at} k:${(k >> 5).toString(36)} ${k36}:${o}`, n);
        inc(`${at} s:${(s >> 5).toString(36)} ${s36}:${o}`, n);
        if (i >= 0) inc(`${at} i:${(i >> 5).toString(36)} ${i.toString(36)}:${o}`, n);
        inc(`${at} f:${i >= 0 ? i.toString(36) : '_'} ${k36}.${s36}:${o}`, n);
      }
    }
    return out;
  }

  // Small codes take the packed tuple key; codes past 2^20 / 2^16 / 2^13 the string key.
  const code = (small: number, limit: number) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 0, max: small }) },
      fc.integer({ min: limit - 3, max: limit + 3 }),
    );

  it('equals the naive per-tuple expansion, whatever is written as section parts', () => {
    const tuple = fc.tuple(
      // Open hours (written as hashes) as often as closed ones.
      fc.oneof(
        fc.integer({ min: nowHour - 24 * 500, max: nowHour }),
        fc.integer({ min: nowHour - 2, max: nowHour }),
      ),
      code(200, 2 ** 20),
      fc.oneof(fc.constant(-1), code(70, 2 ** 16 - 1)),
      code(100, 2 ** 13),
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 1, max: 5 }),
    );
    fc.assert(
      fc.property(
        fc.array(tuple, { maxLength: 60 }),
        fc.integer({ min: -1, max: nowHour }),
        fc.constantFrom(1, 3, PARTS_MIN_ROWS, Infinity),
        (tuples, cmp, partsMinRows) => {
          const h = horizons(cmp);
          const c = new TupleCounter();
          for (const [hour, k, i, s, o, n] of tuples) c.add(hour, k, i, s, o, n);
          const inc = expand(c, { ...h, partsMinRows });
          const got = new Map<string, number>();
          for (const b of inc.buckets) {
            const at = `${b.r}${b.t}@${b.expireAt}`;
            const add = (suffix: string, field: string, n: number) => {
              const id = `${at} ${suffix} ${field}`;
              got.set(id, (got.get(id) ?? 0) + n);
            };
            for (const [suffix, fields] of b.cubes) {
              for (const [field, n] of fields) add(suffix, field, n);
            }
            // A part is written to a closed bucket, holds a cube with enough rows, and only that: none of its
            // cube's counts are in the bucket's hashes as well. An open hour's parts are its f per identity shard,
            // each holding the shard's identities only, none of which has a hash field as well.
            for (const [list, bytes] of b.parts) {
              const section = decodeSection(bytes);
              if (closedForParts(b.r, b.t, now)) {
                expect(list).toBe(partsListSuffix(section.cube as Cube));
                expect(section.rows).toBeGreaterThanOrEqual(partsMinRows);
                expect([...b.cubes.keys()].filter((suffix) => suffix.split(':')[0] === section.cube)).toEqual(
                  [],
                );
              } else {
                expect(b.r).toBe('h');
                expect(section.cube).toBe('f');
                expect(section.rows).toBeGreaterThanOrEqual(Math.min(partsMinRows, SHARD_PARTS_MIN_ROWS));
                const identities = new Set(section.dims[0]);
                const shards = new Set([...identities].map((i) => (i === NO_IDENTITY ? '_' : shardOf(i))));
                expect([...shards].map((shard) => partsListSuffix('f', shard))).toEqual([list]);
                for (const i of identities) {
                  expect(b.cubes.has(`f:${i === NO_IDENTITY ? '_' : i.toString(36)}`)).toBe(false);
                }
              }
              forEachDeltaField(section, add);
            }
          }
          expect(got).toEqual(naive(tuples, h));
          const used = tuples.filter(([hour]) => bucketsOfHour(hour, h).length > 0);
          expect(inc.events).toBe(used.reduce((sum, t) => sum + t[5], 0));
          expect(inc.required.k).toBe(Math.max(0, ...used.map((t) => t[1] + 1)));
          expect(inc.required.i).toBe(Math.max(0, ...used.map((t) => t[2] + 1)));
          expect(inc.required.s).toBe(Math.max(0, ...used.map((t) => t[3] + 1)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

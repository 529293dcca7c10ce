// The edge buckets of billing zones in expand (edge-increments.ts): the five cubes of a day bucket for the same
// tuples, the expiry of their family (day or month retention from the end of the UTC day), section parts once
// closed, nothing past retention, and nothing at all for an API without zones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  EdgeFinder,
  edgeBucketEnd,
  hourOf,
  minuteOf,
  type EdgeResolution,
  type ZoneNumber,
} from '@va/core';
import { expand, TupleCounter, type BucketIncrements } from './aggregate';
import { decodeSection } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';

const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const now = Date.UTC(2025, 5, 15, 12, 30);
// A Kolkata midnight: 18:30 UTC, two days ago (closed).
const x = Date.UTC(2025, 5, 13, 18, 30);
const index = minuteOf(x);

/** The same tuples counted in hour h (compacted: written to its day too) and in edge (res, index). */
function counted(res: EdgeResolution, tuples: [number, number, number, number][]) {
  const c = new TupleCounter();
  for (const [k, i, s, o] of tuples) {
    c.add(hourOf(x), k, i, s, o);
    c.addEdge(res, index, k, i, s, o);
  }
  return c;
}

const tuples: [number, number, number, number][] = [
  [0, -1, 0, 1],
  [1, 0, 1, 1],
  [1, 0, 1, 2],
  [40, 2, 0, 1],
];
const only = (buckets: BucketIncrements[], r: string) => buckets.filter((b) => b.r === r);

describe('expand: edges of billing zones', () => {
  it('writes the cubes a day bucket gets for the same tuples, expiring with the day retention (z<n>d)', () => {
    const inc = expand(counted('z1d', tuples), {
      now,
      retention,
      cmp: hourOf(now) - 2,
      partsMinRows: Infinity,
    });
    const [day] = only(inc.buckets, 'd');
    const [edge] = only(inc.buckets, 'z1d');
    expect(edge).toBeDefined();
    expect(edge!.t).toBe(index);
    expect(edge!.expireAt).toBe(edgeBucketEnd(index) + retention.dayMs);
    expect(edge!.expireAt).toBe(Date.UTC(2025, 5, 14) + retention.dayMs);
    expect(edge!.cubes).toEqual(day!.cubes);
    expect(edge!.parts.size).toBe(0);
    expect(inc.keepUntil).toBeGreaterThanOrEqual(edge!.expireAt);
    expect(inc.required).toEqual({ k: 41, i: 3, s: 2 });
  });

  it('a month edge (z<n>m) expires with the month retention', () => {
    const inc = expand(counted('z2m', tuples), { now, retention, cmp: null });
    const [edge] = only(inc.buckets, 'z2m');
    expect(edge!.expireAt).toBe(edgeBucketEnd(index) + retention.monthMs);
  });

  it('a closed edge with many rows is written as section parts, like a closed day', () => {
    const many: [number, number, number, number][] = [];
    for (let k = 0; k < 40; k++) many.push([k, k % 3, k % 2, k % 9]);
    const inc = expand(counted('z1d', many), { now, retention, cmp: null, partsMinRows: 16 });
    const [edge] = only(inc.buckets, 'z1d');
    expect([...edge!.parts.keys()].sort()).toEqual(['L:f', 'L:k']);
    expect(edge!.cubes.has('t')).toBe(true);
  });

  it('an edge of the open UTC day keeps hash increments, like an open hour, its f as parts per identity shard', () => {
    const c = new TupleCounter();
    const open = minuteOf(Date.UTC(2025, 5, 15, 5, 0));
    // 40 rows without identity (a part of L:f:_), 2 of identity 33 (shard 1: hash fields).
    for (let k = 0; k < 42; k++) {
      const i = k < 40 ? -1 : 33;
      c.add(hourOf(now), k, i, 0, 1);
      c.addEdge('z1d', open, k, i, 0, 1);
    }
    const [edge] = only(expand(c, { now, retention, cmp: null, partsMinRows: 16 }).buckets, 'z1d');
    expect([...edge!.parts.keys()]).toEqual(['L:f:_']);
    const part = decodeSection(edge!.parts.get('L:f:_')!);
    expect([part.rows, part.dims[1]![39]]).toEqual([40, 39]);
    expect(edge!.cubes.get('t')).toEqual(new Map([['1', 42]]));
    expect([...edge!.cubes.keys()].filter((suffix) => suffix.startsWith('f'))).toEqual(['f:x']);
  });

  it('an edge past its retention is not written', () => {
    const old = minuteOf(now - 500 * DAY_MS);
    const c = new TupleCounter();
    c.add(hourOf(now), 0, -1, 0, 1);
    c.addEdge('z1d', old, 0, -1, 0, 1);
    expect(only(expand(c, { now, retention, cmp: null }).buckets, 'z1d')).toEqual([]);
  });

  it('an API without zones gets no edge bucket', () => {
    const c = new TupleCounter();
    c.add(hourOf(x), 0, -1, 0, 1);
    expect(c.edges).toBeUndefined();
    expect(expand(c, { now, retention, cmp: null }).buckets.map((b) => b.r)).toEqual(['h']);
  });
});

describe('expand: the hours an edge holds whole, counted from the hour (property)', () => {
  const zones = ['Asia/Kolkata', 'Asia/Kathmandu', 'America/New_York', 'Pacific/Chatham'];

  /** Every count of the written buckets, hash fields and section parts alike: bucket, cube suffix, field. */
  function counts(buckets: readonly BucketIncrements[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const b of buckets) {
      const add = (suffix: string, field: string, n: number) => {
        const id = `${b.r}${b.t}@${b.expireAt} ${suffix} ${field}`;
        out.set(id, (out.get(id) ?? 0) + n);
      };
      for (const [suffix, fields] of b.cubes) for (const [field, n] of fields) add(suffix, field, n);
      for (const bytes of b.parts.values()) forEachDeltaField(decodeSection(bytes), add);
    }
    return out;
  }

  it("an open edge's whole hour is written like an open hour: its f as parts per identity shard", () => {
    const late = Date.UTC(2025, 5, 15, 20, 30); // inside Kolkata's tail [18:30, 24:00) of the open UTC day
    const finders = [new EdgeFinder('Asia/Kolkata', 1)];
    const c = new TupleCounter();
    for (let k = 0; k < 42; k++) {
      c.add(hourOf(late), k, k < 40 ? -1 : 33, 0, 1);
      for (const e of finders[0]!.cut(late)) c.addEdge(e.res, e.index, k, -1, 0, 1);
      c.countedInZones(finders);
    }
    expect(c.edges).toBeUndefined(); // hour 20 is whole in the edge: nothing counted event by event
    const inc = expand(c, { now: late, retention, cmp: null, partsMinRows: 16 });
    const [edge] = only(inc.buckets, 'z1d');
    expect(edge!.t).toBe(minuteOf(Date.UTC(2025, 5, 15, 18, 30)));
    expect(edge!.expireAt).toBe(Date.UTC(2025, 5, 16) + retention.dayMs);
    expect([...edge!.parts.keys()]).toEqual(['L:f:_']);
    expect(edge!.cubes.get('t')).toEqual(new Map([['1', 42]]));
    const [hour] = only(inc.buckets, 'h');
    expect(edge!.cubes).toEqual(hour!.cubes);
    expect(edge!.parts).toEqual(hour!.parts);
  });

  it('equals counting every event in each edge whose window holds it', () => {
    const event = fc.record({
      // The last three days (open and closed hours, edges of the open day) and the last 40 (closed edges).
      t: fc.oneof(
        fc.integer({ min: now - 3 * DAY_MS, max: now }),
        fc.integer({ min: now - 40 * DAY_MS, max: now }),
      ),
      k: fc.integer({ min: 0, max: 30 }),
      i: fc.integer({ min: -1, max: 70 }),
      s: fc.integer({ min: 0, max: 5 }),
      o: fc.integer({ min: 0, max: 8 }),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 150 }),
        fc.subarray(zones, { minLength: 1 }),
        fc.integer({ min: hourOf(now) - 24 * 45, max: hourOf(now) }),
        fc.constantFrom(1, 3, 16, Infinity),
        (events, declared, cmp, partsMinRows) => {
          const finders = declared.map((zone, n) => new EdgeFinder(zone, (n + 1) as ZoneNumber));
          const byEvent = new TupleCounter();
          const byHour = new TupleCounter();
          for (const { t, k, i, s, o } of events) {
            byEvent.add(hourOf(t), k, i, s, o);
            byHour.add(hourOf(t), k, i, s, o);
            for (const finder of finders) {
              for (const e of finder.at(t)) byEvent.addEdge(e.res, e.index, k, i, s, o);
              for (const e of finder.cut(t)) byHour.addEdge(e.res, e.index, k, i, s, o);
            }
            byEvent.countedInZones(finders.length);
            byHour.countedInZones(finders);
          }
          const context = { now, retention, cmp, partsMinRows };
          const a = expand(byEvent, context);
          const b = expand(byHour, context);
          expect(counts(b.buckets)).toEqual(counts(a.buckets));
          expect([b.events, b.keepUntil, b.required, b.billingZones]).toEqual([
            a.events,
            a.keepUntil,
            a.required,
            a.billingZones,
          ]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

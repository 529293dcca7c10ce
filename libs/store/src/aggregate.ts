/**
 * Pre-aggregation of one API's events of a batch into counter increments (pure, no I/O).
 *
 * Two steps, because the cubes repeat every dimension several times:
 *   1. TupleCounter: count events per (hour, key, identity, tag set, outcome) — one Map update
 *      per event;
 *   2. expand: every distinct tuple adds its count to the five cubes (keys.ts: t, k, i, s, f)
 *      of every bucket its hour is written to (bucketsOfHour).
 *
 * Which buckets an hour is written to (docs/design.md, CONTRACT §4):
 *   - hour still inside hour retention: its hour bucket; and when the hour is already compacted
 *     (h <= cmp) also its day and month rollups, since the compactor will not visit it again;
 *   - hour past hour retention: its day rollup (if still inside day retention) and its month rollup.
 * A bucket outside its own retention is never written (its keys would expire at once).
 */
import { DAY_MS, HOUR_MS, dayOfHour, monthOfHour, monthStart } from '@va/core';
import { code36, cubeSuffix, NO_IDENTITY_PART, shardOf, type DictName, type Resolution } from './keys';

export interface Retention {
  hourMs: number;
  dayMs: number;
  monthMs: number;
}

export interface Horizons {
  /** The worker's clock (unix ms) for this batch. */
  now: number;
  retention: Retention;
  /** Last hour compacted into day/month rollups for this API; -1 = none. */
  cmp: number;
}

export interface Bucket {
  r: Resolution;
  /** Bucket index: hour, day or month index (libs/core/time.ts). */
  t: number;
  /** Unix ms at which the bucket's keys expire: bucket end + retention of r. */
  expireAt: number;
}

export interface BucketIncrements extends Bucket {
  /** cube suffix ("t", "k:0", "f:_", ...) -> field -> increment */
  cubes: Map<string, Map<string, number>>;
}

export interface ApiIncrements {
  buckets: BucketIncrements[];
  /** Events counted (those inside some retention). */
  events: number;
  /** Per dictionary: highest code used + 1 (0 = none used); Redis must hold at least that many. */
  required: Record<DictName, number>;
}

/** The buckets an event of hour h is counted in (see the header). */
export function bucketsOfHour(h: number, { now, retention, cmp }: Horizons): Bucket[] {
  const out: Bucket[] = [];
  const hourExpire = (h + 1) * HOUR_MS + retention.hourMs;
  const d = dayOfHour(h);
  const dayExpire = (d + 1) * DAY_MS + retention.dayMs;
  const m = monthOfHour(h);
  const monthExpire = monthStart(m + 1) + retention.monthMs;
  const hourAlive = hourExpire > now;
  if (hourAlive) out.push({ r: 'h', t: h, expireAt: hourExpire });
  if (!hourAlive || h <= cmp) {
    if (dayExpire > now) out.push({ r: 'd', t: d, expireAt: dayExpire });
    if (monthExpire > now) out.push({ r: 'm', t: m, expireAt: monthExpire });
  }
  return out;
}

/**
 * Step 1: events counted per (hour, key, identity, tag set, outcome). Nested maps with number
 * keys (hour -> key -> identity + 1 -> tag set * 16 + outcome -> count): exact for any code, and
 * several times cheaper per event than building a composite string key.
 */
export class TupleCounter {
  private readonly hours = new Map<number, Map<number, Map<number, Map<number, number>>>>();
  /** Events added. */
  events = 0;
  /** Distinct tuples. */
  size = 0;

  add(h: number, k: number, i: number, s: number, o: number, n = 1): void {
    let keys = this.hours.get(h);
    if (!keys) this.hours.set(h, (keys = new Map()));
    let identities = keys.get(k);
    if (!identities) keys.set(k, (identities = new Map()));
    let sets = identities.get(i + 1);
    if (!sets) identities.set(i + 1, (sets = new Map()));
    const so = s * 16 + o;
    const count = sets.get(so);
    if (count === undefined) {
      sets.set(so, n);
      this.size++;
    } else sets.set(so, count + n);
    this.events += n;
  }

  /** The counts: hour -> key code -> identity code + 1 -> tag-set code * 16 + outcome -> count. */
  tree(): ReadonlyMap<number, ReadonlyMap<number, ReadonlyMap<number, ReadonlyMap<number, number>>>> {
    return this.hours;
  }
}

function fieldsOf(cubes: Map<string, Map<string, number>>, suffix: string): Map<string, number> {
  let fields = cubes.get(suffix);
  if (!fields) {
    fields = new Map();
    cubes.set(suffix, fields);
  }
  return fields;
}

const add = (fields: Map<string, number>, field: string, n: number): void => {
  fields.set(field, (fields.get(field) ?? 0) + n);
};

const OUTCOME_STRINGS = [
  '0',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
  '10',
  '11',
  '12',
  '13',
  '14',
  '15',
];

/**
 * Step 2: the cube increments of every bucket the tuples' hours are written to. Walks the tuple
 * tree level by level so that each code's strings are built once, and sums what a cube does not
 * split by (t per hour, k per key, i per key and identity) before touching a field map.
 */
export function expand(counter: TupleCounter, horizons: Horizons): ApiIncrements {
  const buckets: BucketIncrements[] = [];
  const byBucket = new Map<string, BucketIncrements>();
  const required = { k: 0, i: 0, s: 0 };
  let events = 0;
  const s36 = new Map<number, string>();
  const sSuffix = new Map<number, string>();
  const totals = new Array<number>(16);
  const perKey = new Array<number>(16);
  const perIdentity = new Array<number>(16);
  const flush = (counts: number[], targets: BucketIncrements[], suffix: string, prefix: string) => {
    for (let o = 0; o < 16; o++) {
      const n = counts[o]!;
      if (n === 0) continue;
      const field = prefix + OUTCOME_STRINGS[o]!;
      for (const b of targets) add(fieldsOf(b.cubes, suffix), field, n);
    }
  };

  for (const [h, keys] of counter.tree()) {
    const targets = bucketsOfHour(h, horizons).map((b) => {
      const id = `${b.r}${b.t}`;
      let bucket = byBucket.get(id);
      if (!bucket) {
        bucket = { ...b, cubes: new Map() };
        byBucket.set(id, bucket);
        buckets.push(bucket);
      }
      return bucket;
    });
    if (targets.length === 0) continue; // outside every retention: validation normally drops these first
    totals.fill(0);
    for (const [k, identities] of keys) {
      if (k >= required.k) required.k = k + 1;
      const k36 = code36(k);
      perKey.fill(0);
      for (const [i1, sets] of identities) {
        const i = i1 - 1;
        if (i >= required.i) required.i = i + 1;
        const i36 = i >= 0 ? code36(i) : NO_IDENTITY_PART;
        const fCubes = targets.map((b) => fieldsOf(b.cubes, cubeSuffix('f', i36)));
        perIdentity.fill(0);
        for (const [so, n] of sets) {
          const s = Math.floor(so / 16);
          const o = so - s * 16;
          if (s >= required.s) required.s = s + 1;
          let sCode = s36.get(s);
          let sPart = sSuffix.get(s);
          if (sCode === undefined || sPart === undefined) {
            sCode = code36(s);
            sPart = cubeSuffix('s', shardOf(s));
            s36.set(s, sCode);
            sSuffix.set(s, sPart);
          }
          const sField = `${sCode}:${OUTCOME_STRINGS[o]}`;
          const fField = `${k36}.${sField}`;
          for (let b = 0; b < targets.length; b++) {
            add(fieldsOf(targets[b]!.cubes, sPart), sField, n);
            add(fCubes[b]!, fField, n);
          }
          perIdentity[o]! += n;
          perKey[o]! += n;
          totals[o]! += n;
          events += n;
        }
        if (i >= 0) flush(perIdentity, targets, cubeSuffix('i', shardOf(i)), `${i36}:`);
      }
      flush(perKey, targets, cubeSuffix('k', shardOf(k)), `${k36}:`);
    }
    flush(totals, targets, 't', '');
  }

  return { buckets: buckets.filter((b) => b.cubes.size > 0), events, required };
}

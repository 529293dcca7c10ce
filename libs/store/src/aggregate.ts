/**
 * Pre-aggregation of one API's events of a batch into counter increments (pure, no I/O).
 *
 * Two steps, because the cubes repeat every dimension several times:
 *   1. TupleCounter: count events per (hour, key, identity, tag set, outcome) — one Map update
 *      per event;
 *   2. expand: every distinct tuple adds its count to the five cubes (keys.ts: t, k, i, s, f)
 *      of every bucket its hour is written to (bucketsOfHour).
 * Events within the minute retention are counted per minute too (TupleCounter.addMinute), for the
 * minute buckets of groupBy=minute (minute-increments.ts); history adds none.
 *
 * Which buckets an hour is written to (docs/rollups.md, docs/api.md#retention):
 *   - hour not compacted yet (h > cmp): its hour bucket only, WITHOUT an expiry. The compactor
 *     merges it into its rollups and only then sets the hour's expiry (end + hour retention),
 *     so an hour whose retention ends before it is compacted (a rebuild, a new API's old
 *     history, a stopped compactor) still reaches its rollups: no timer races the compactor;
 *   - hour already compacted (h <= cmp): its hour bucket while inside hour retention, and its
 *     day and month rollups, since the compactor will not visit it again.
 * A bucket outside its own retention is never written (its keys would expire at once), and an
 * hour outside every retention is not written at all. Readers rely on a day never being written
 * without its month while the month is kept, nor a compacted hour without its day while the day is kept
 * (rollup-children.ts checks a month for its days, and a day for its compacted hours).
 *
 * How (docs/store-v2.md "History written as section parts"): a bucket that ended more than an hour
 * before the batch's clock (history, a replay, late events) gets each cube with at least
 * `partsMinRows` rows as one encoded section part, appended whole to its parts list; every other
 * cube and bucket as hash increments (HINCRBY). A part costs Redis one RPUSH however many rows it
 * holds, where hash fields cost one HINCRBY each: an hour of history hardly aggregates.
 */
import { dayOfHour, expiresAt, hourOf, lastHourOf, monthOfHour, type Retention } from '@va/core';
import {
  code36,
  cubeSuffix,
  NO_IDENTITY_PART,
  partsListSuffix,
  shardOf,
  type BucketResolution,
  type Cube,
  type DictName,
} from './keys';
import { minuteIncrements } from './minute-increments';
import { codeField, keySetField, totalField } from './field-codec';
import { PackedCounts } from './packed-counts';
import { encodeSection } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';
import { sectionsOfTuples } from './section/tuple-sections';

/**
 * What decides which buckets a batch's hours are written to. (Not libs/core's Horizons, the first
 * bucket index still kept per resolution: those follow from `now` and `retention` by horizonsAt.)
 */
export interface WriteContext {
  /** The worker's clock (unix ms) for this batch. */
  now: number;
  retention: Retention;
  /** Last hour compacted into day/month rollups for this API (an hour index); null = none. */
  cmp: number | null;
  /**
   * A closed bucket's cube with at least this many rows is written as a section part (see the
   * header); default PARTS_MIN_ROWS, Infinity = never.
   */
  partsMinRows?: number;
}

/**
 * Rows from which a cube of a closed bucket is written as one section part rather than hash
 * fields. Below it, the fields are few, and a bucket that receives a trickle of late events keeps
 * one hash per part instead of a growing list of tiny parts until it is sealed again.
 */
export const PARTS_MIN_ROWS = 16;

/**
 * Whether a bucket may be written as section parts at this clock: it ended more than an hour ago.
 * The current and the previous hour (and the open day and month) keep hash increments: live
 * traffic writes them again and again, where a part per batch would pile up until sealed.
 */
export const closedForParts = (r: BucketResolution, t: number, now: number): boolean =>
  lastHourOf(r, t) < hourOf(now) - 1;

export interface Bucket {
  /** 'n': a minute bucket (minute-increments.ts). */
  r: BucketResolution;
  /** Bucket index: minute, hour, day or month index (libs/core/time.ts). */
  t: number;
  /**
   * Unix ms at which the bucket's keys expire: bucket end + retention of r; NO_EXPIRY for an
   * hour not compacted yet (the compactor sets its expiry when it merges it).
   */
  expireAt: number;
}

export interface BucketIncrements extends Bucket {
  /** cube suffix ("t", "k:0", "f:_", ...) -> field -> increment */
  cubes: Map<string, Map<string, number>>;
  /** parts list suffix ("L:f", keys.ts partsListSuffix) -> encoded section to append to it */
  parts: Map<string, Buffer>;
}

export interface ApiIncrements {
  buckets: BucketIncrements[];
  /** Events counted (those inside some retention). */
  events: number;
  /** Per dictionary: highest code used + 1 (0 = none used); Redis must hold at least that many. */
  required: Record<DictName, number>;
  /**
   * Unix ms until which the API's dictionaries and offsets must be kept: the latest expiry of any
   * bucket the counted hours reach (keepUntilOfHour); 0 when nothing was counted.
   */
  keepUntil: number;
}

/**
 * The last instant any bucket holding hour h can exist: the latest of its hour, day and month
 * expiries (normally the month's). The API's dictionaries, offsets and compaction point are
 * kept at least that long after its newest event, and may go after it (docs/redis-layout.md).
 */
export function keepUntilOfHour(h: number, retention: Retention): number {
  return Math.max(
    expiresAt('h', h, retention),
    expiresAt('d', dayOfHour(h), retention),
    expiresAt('m', monthOfHour(h), retention),
  );
}

/** expireAt of a bucket that must not expire yet: applyApiBatch sets no expiry. */
export const NO_EXPIRY = 0;

/** The buckets an event of hour h is counted in (see the header). */
export function bucketsOfHour(h: number, { now, retention, cmp }: WriteContext): Bucket[] {
  const hourExpire = expiresAt('h', h, retention);
  const d = dayOfHour(h);
  const dayExpire = expiresAt('d', d, retention);
  const m = monthOfHour(h);
  const monthExpire = expiresAt('m', m, retention);
  if (cmp === null || h > cmp) {
    const keptSomewhere = hourExpire > now || dayExpire > now || monthExpire > now;
    return keptSomewhere ? [{ r: 'h', t: h, expireAt: NO_EXPIRY }] : [];
  }
  const out: Bucket[] = [];
  if (hourExpire > now) out.push({ r: 'h', t: h, expireAt: hourExpire });
  if (dayExpire > now) out.push({ r: 'd', t: d, expireAt: dayExpire });
  if (monthExpire > now) out.push({ r: 'm', t: m, expireAt: monthExpire });
  return out;
}

/*
 * Tuple keys: one number packing (key, identity + 1, tag set, outcome) when the codes fit
 * (key < 2^20, identity + 1 < 2^16, tag set < 2^13: 20 + 16 + 13 + 4 = 53 bits, exact in a double),
 * else a string. A packed number key is several times cheaper per event than nested maps or a
 * composite string, and PackedCounts keeps it in typed arrays (no allocation per event, not even per
 * new tuple).
 */
const K_LIMIT = 2 ** 20;
const I_RADIX = 2 ** 16;
const S_RADIX = 2 ** 13;

const pack = (k: number, i1: number, s: number, o: number): number =>
  ((k * I_RADIX + i1) * S_RADIX + s) * 16 + o;

interface HourCounts {
  packed: PackedCounts;
  /** Tuples whose codes do not fit the packed key: "k|i|s|o". */
  wide: Map<string, number> | undefined;
}

/** A visitor of counted tuples (i = -1: no identity). */
export type TupleVisitor = (h: number, k: number, i: number, s: number, o: number, n: number) => void;

/** Step 1: events counted per (hour, key, identity, tag set, outcome). */
export class TupleCounter {
  private readonly hours = new Map<number, HourCounts>();
  /** Events added. */
  events = 0;
  /** Distinct tuples. */
  size = 0;
  /** The events also counted per minute (addMinute; the tuples' "hour" is then the minute index), or none. */
  minutes: TupleCounter | undefined;

  /** Counts an event of minute n in the minute buckets too; `add` counts it in its hour. */
  addMinute(n: number, k: number, i: number, s: number, o: number, count = 1): void {
    (this.minutes ??= new TupleCounter()).add(n, k, i, s, o, count);
  }

  add(h: number, k: number, i: number, s: number, o: number, n = 1): void {
    let hour = this.hours.get(h);
    if (!hour) {
      hour = { packed: new PackedCounts(), wide: undefined };
      this.hours.set(h, hour);
    }
    this.events += n;
    if (k < K_LIMIT && i + 1 < I_RADIX && s < S_RADIX) {
      if (hour.packed.add(pack(k, i + 1, s, o), n)) this.size++;
      return;
    }
    hour.wide ??= new Map();
    const key = `${k}|${i}|${s}|${o}`;
    const count = hour.wide.get(key);
    if (count === undefined) {
      hour.wide.set(key, n);
      this.size++;
    } else hour.wide.set(key, count + n);
  }

  /** Each hour counted with its distinct tuples. */
  *hourSizes(): IterableIterator<[number, number]> {
    for (const [h, { packed, wide }] of this.hours) yield [h, packed.size + (wide?.size ?? 0)];
  }

  /** Calls fn for every distinct tuple, hour by hour (i = -1: no identity). */
  forEach(fn: TupleVisitor): void {
    for (const h of this.hours.keys()) this.forEachOfHour(h, fn);
  }

  /** Calls fn for every distinct tuple of hour h. */
  forEachOfHour(h: number, fn: TupleVisitor): void {
    const hour = this.hours.get(h);
    if (!hour) return;
    hour.packed.forEach((key, n) => {
      const o = key % 16;
      let rest = (key - o) / 16;
      const s = rest % S_RADIX;
      rest = (rest - s) / S_RADIX;
      const i1 = rest % I_RADIX;
      fn(h, (rest - i1) / I_RADIX, i1 - 1, s, o, n);
    });
    if (hour.wide) {
      for (const [key, n] of hour.wide) {
        const [k, i, s, o] = key.split('|').map(Number) as [number, number, number, number];
        fn(h, k, i, s, o, n);
      }
    }
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

/** Per-code strings, built once per expand call. */
class CodeStrings {
  private readonly code = new Map<number, string>();
  private readonly part = new Map<number, string>();
  constructor(private readonly cube: Cube) {}
  code36(c: number): string {
    let v = this.code.get(c);
    if (v === undefined) this.code.set(c, (v = code36(c)));
    return v;
  }
  suffix(c: number): string {
    let v = this.part.get(c);
    if (v === undefined) this.part.set(c, (v = cubeSuffix(this.cube, shardOf(c))));
    return v;
  }
}

/**
 * The buckets ("<r><t>") whose hours hold at least minRows distinct tuples together. A cube's rows project
 * the tuples, so no cube of another bucket can reach minRows: its tuples go to hash fields at once (the
 * fields forEachDeltaField would give), not through five sections built to be thrown away (#41: a
 * bucket of the long tail holds one to three tuples).
 */
function bucketsReaching(counter: TupleCounter, context: WriteContext, minRows: number): Set<string> {
  const tuples = new Map<string, number>();
  const out = new Set<string>();
  for (const [h, n] of counter.hourSizes()) {
    for (const b of bucketsOfHour(h, context)) {
      const id = `${b.r}${b.t}`;
      const sum = (tuples.get(id) ?? 0) + n;
      tuples.set(id, sum);
      if (sum >= minRows) out.add(id);
    }
  }
  return out;
}

/**
 * Step 2: the cube increments of every bucket the tuples' hours are written to. Per tuple only the
 * cubes that keep the tag set (s, f) are touched; t, k and i are summed per hour first (they are
 * coarser), and every code's strings are built once.
 */
export function expand(counter: TupleCounter, context: WriteContext): ApiIncrements {
  const buckets: BucketIncrements[] = [];
  const byBucket = new Map<string, BucketIncrements>();
  const required = { k: 0, i: 0, s: 0 };
  let events = 0;
  let keepUntil = 0;
  const keys = new CodeStrings('k');
  const sets = new CodeStrings('s');
  const identities = new CodeStrings('i');
  const fSuffix = new Map<number, string>();

  const minRows = context.partsMinRows ?? PARTS_MIN_ROWS;
  // Fewer distinct tuples than minRows in all: no bucket can reach it (most APIs of the long tail, #41).
  const partsPossible =
    minRows === Infinity || counter.size < minRows ? undefined : bucketsReaching(counter, context, minRows);
  /** The hours whose tuples each bucket written as section parts receives. */
  const partHours = new Map<BucketIncrements, number[]>();
  let hour: number | undefined;
  let targets: BucketIncrements[] = [];
  let partTargets = 0;
  const totals = new Array<number>(16).fill(0);
  const perKey = new Map<number, number>(); // k * 16 + o -> n
  const perIdentity = new Map<number, number>(); // i * 16 + o -> n

  const flushHour = () => {
    for (const b of targets) {
      let t: Map<string, number> | undefined;
      for (let o = 0; o < 16; o++)
        if (totals[o]! > 0) add((t ??= fieldsOf(b.cubes, 't')), totalField(o), totals[o]!);
      for (const [ko, n] of perKey) {
        const o = ko % 16;
        const k = (ko - o) / 16;
        add(fieldsOf(b.cubes, keys.suffix(k)), codeField(keys.code36(k), o), n);
      }
      for (const [io, n] of perIdentity) {
        const o = io % 16;
        const i = (io - o) / 16;
        add(fieldsOf(b.cubes, identities.suffix(i)), codeField(identities.code36(i), o), n);
      }
    }
    totals.fill(0);
    perKey.clear();
    perIdentity.clear();
  };

  counter.forEach((h, k, i, s, o, n) => {
    if (h !== hour) {
      flushHour();
      hour = h;
      targets = [];
      partTargets = 0;
      for (const b of bucketsOfHour(h, context)) {
        const id = `${b.r}${b.t}`;
        let bucket = byBucket.get(id);
        if (!bucket) {
          bucket = { r: b.r, t: b.t, expireAt: b.expireAt, cubes: new Map(), parts: new Map() };
          byBucket.set(id, bucket);
          buckets.push(bucket);
        }
        if (partsPossible?.has(id) && closedForParts(b.r, b.t, context.now)) {
          const hours = partHours.get(bucket);
          if (hours) hours.push(h);
          else partHours.set(bucket, [h]);
          partTargets++;
        } else targets.push(bucket);
      }
      if (targets.length + partTargets > 0) {
        keepUntil = Math.max(keepUntil, keepUntilOfHour(h, context.retention));
      }
    }
    // Outside every retention: validation normally drops these first.
    if (targets.length + partTargets === 0) return;
    if (k >= required.k) required.k = k + 1;
    if (i >= required.i) required.i = i + 1;
    if (s >= required.s) required.s = s + 1;
    events += n;
    if (targets.length === 0) return;
    totals[o]! += n;
    perKey.set(k * 16 + o, (perKey.get(k * 16 + o) ?? 0) + n);
    if (i >= 0) perIdentity.set(i * 16 + o, (perIdentity.get(i * 16 + o) ?? 0) + n);

    let f = fSuffix.get(i);
    if (f === undefined)
      fSuffix.set(i, (f = cubeSuffix('f', i >= 0 ? identities.code36(i) : NO_IDENTITY_PART)));
    const set = sets.code36(s);
    const sField = codeField(set, o);
    const fField = keySetField(keys.code36(k), set, o);
    const sSuffix = sets.suffix(s);
    for (const b of targets) {
      add(fieldsOf(b.cubes, sSuffix), sField, n);
      add(fieldsOf(b.cubes, f), fField, n);
    }
  });
  flushHour();
  for (const [bucket, hours] of partHours) {
    const tuples = { forEach: (fn: TupleVisitor) => hours.forEach((h) => counter.forEachOfHour(h, fn)) };
    for (const [cube, section] of sectionsOfTuples(tuples)) {
      if (section.rows > 0 && section.rows >= minRows)
        bucket.parts.set(partsListSuffix(cube), encodeSection(section));
      else forEachDeltaField(section, (suffix, field, n) => add(fieldsOf(bucket.cubes, suffix), field, n));
    }
  }

  const minutes = counter.minutes ? minuteIncrements(counter.minutes, context) : [];
  return {
    buckets: [...buckets.filter((b) => b.cubes.size > 0 || b.parts.size > 0), ...minutes],
    events,
    required,
    keepUntil,
  };
}

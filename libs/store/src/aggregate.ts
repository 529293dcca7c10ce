/**
 * Pre-aggregation of one API's events of a batch into counter increments (pure, no I/O).
 *
 * Two steps, because the cubes repeat every dimension several times:
 *   1. TupleCounter: count events per (hour, key, identity, tag set, outcome) — one Map update
 *      per event;
 *   2. expand: every distinct tuple adds its count to the five cubes (keys.ts: t, k, i, s, f)
 *      of every bucket its hour is written to (bucketsOfHour).
 * Events within the minute retention are counted per minute too (TupleCounter.addWithMinute), for the
 * minute buckets of groupBy=minute (minute-increments.ts); history adds none. Events inside an edge of a
 * billing zone of their API are counted in the edge too (TupleCounter.addEdge, edge-increments.ts).
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
 * holds, where hash fields cost one HINCRBY each: an hour of history hardly aggregates. An open hour's
 * f cube in a batch with at least `partsMinRows` tuples of it goes as one part per identity shard
 * (open-f-parts.ts): its rows hardly repeat, where t, k, i and s repeat batch after batch.
 */
import { dayOfHour, expiresAt, hourOf, lastHourOf, monthOfHour, type Retention } from '@va/core';
import {
  code36,
  cubeSuffix,
  NO_IDENTITY_PART,
  partsListSuffix,
  shardOf,
  SHARD_BITS,
  type BucketResolution,
  type Cube,
  type DictName,
} from './keys';
import { edgeIncrements } from './edge-increments';
import { PARTS_MIN_ROWS, type Bucket, type BucketIncrements, type WriteContext } from './bucket-increments';
import { minuteIncrements } from './minute-increments';
import { SHARD_PARTS_MIN_ROWS, writeShardParts } from './open-f-parts';
import { codeField, keySetField, totalField } from './field-codec';
import { TupleCounter, type TupleVisitor } from './tuple-counter';
import { encodeSection } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';
import { FRows, sectionsOfTuples } from './section/tuple-sections';

export { TupleCounter, type TupleVisitor };
export type { Bucket, BucketIncrements, WriteContext } from './bucket-increments';
export { PARTS_MIN_ROWS } from './bucket-increments';

/**
 * Whether a bucket may be written as section parts at this clock: it ended more than an hour ago.
 * The current and the previous hour (and the open day and month) keep hash increments: live
 * traffic writes them again and again, where a part per batch would pile up until sealed (an open
 * hour's f excepted: per identity shard, open-f-parts.ts).
 */
export const closedForParts = (r: BucketResolution, t: number, now: number): boolean =>
  lastHourOf(r, t) < hourOf(now) - 1;

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
  /**
   * The number of the API's billing zones every counted event was counted in (zones 1..n: TupleCounter.zones);
   * -1 or absent when no event was counted. applyApiBatch records each zone's since from it (docs/design.md
   * "Billing zones").
   */
  billingZones?: number;
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

/** An hour's buckets (bucketsOfHour) and keep-until (keepUntilOfHour): read only, shared (hourPlan). */
interface HourPlan {
  buckets: readonly Bucket[];
  keepUntil: number;
}

/**
 * hourPlan's memory: per hour, for the clock and retention last seen, one plan for an hour after the API's
 * compaction point and one for a compacted hour (all bucketsOfHour reads of cmp). A batch of the long tail
 * expands thousands of APIs over the same few hundred hours, each computing the same calendar (#41).
 */
const plans = {
  now: NaN,
  retention: [NaN, NaN, NaN, NaN],
  open: new Map<number, HourPlan>(),
  compacted: new Map<number, HourPlan>(),
};
const MAX_PLANS = 100_000;

function hourPlan(h: number, context: WriteContext): HourPlan {
  const { now, retention, cmp } = context;
  const kept = plans.retention;
  if (
    now !== plans.now ||
    retention.hourMs !== kept[0] ||
    retention.dayMs !== kept[1] ||
    retention.monthMs !== kept[2] ||
    (retention.minuteMs ?? 0) !== kept[3]
  ) {
    plans.now = now;
    plans.retention = [retention.hourMs, retention.dayMs, retention.monthMs, retention.minuteMs ?? 0];
    plans.open.clear();
    plans.compacted.clear();
  }
  const memo = cmp === null || h > cmp ? plans.open : plans.compacted;
  let plan = memo.get(h);
  if (plan === undefined) {
    if (memo.size >= MAX_PLANS) memo.clear();
    plan = { buckets: bucketsOfHour(h, context), keepUntil: keepUntilOfHour(h, retention) };
    memo.set(h, plan);
  }
  return plan;
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

/** The key suffixes of one cube's shards, built once per expand call. */
class ShardSuffixes {
  private readonly part = new Map<number, string>();
  constructor(private readonly cube: Cube) {}
  of(c: number): string {
    const shard = c >> SHARD_BITS;
    let v = this.part.get(shard);
    if (v === undefined) this.part.set(shard, (v = cubeSuffix(this.cube, shardOf(c))));
    return v;
  }
}

/** A bucket of hours (r h, d or m) as one number, for expand's maps: no string per hour. */
const bucketId = ({ r, t }: Bucket): number => t * 4 + (r === 'h' ? 0 : r === 'd' ? 1 : 2);

/**
 * The buckets (bucketId) whose hours hold at least minRows distinct tuples together. A cube's rows project
 * the tuples, so no cube of another bucket can reach minRows: its tuples go to hash fields at once (the
 * fields forEachDeltaField would give), not through five sections built to be thrown away (#41: a
 * bucket of the long tail holds one to three tuples).
 */
function bucketsReaching(counter: TupleCounter, context: WriteContext, minRows: number): Set<number> {
  const tuples = new Map<number, number>();
  const out = new Set<number>();
  for (const [h, n] of counter.hourSizes()) {
    for (const b of hourPlan(h, context).buckets) {
      const id = bucketId(b);
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
  const byBucket = new Map<number, BucketIncrements>();
  const required = { k: 0, i: 0, s: 0 };
  let events = 0;
  let keepUntil = 0;
  const keyShards = new ShardSuffixes('k');
  const setShards = new ShardSuffixes('s');
  const identityShards = new ShardSuffixes('i');
  const fSuffix = new Map<number, string>();

  const minRows = context.partsMinRows ?? PARTS_MIN_ROWS;
  // Fewer distinct tuples than minRows in all: no bucket can reach it (most APIs of the long tail, #41).
  const partsPossible =
    minRows === Infinity || counter.size < minRows ? undefined : bucketsReaching(counter, context, minRows);
  /** The hours whose tuples each bucket written as section parts receives. */
  const partHours = new Map<BucketIncrements, number[]>();
  let hour: number | undefined;
  let targets: BucketIncrements[] = [];
  /** Open hour buckets with at least minRows tuples: their f rows, written per identity shard (open-f-parts.ts). */
  const fParts = new Map<BucketIncrements, FRows>();
  /** fParts' entry of each of `targets`, or undefined where f is hash fields. */
  let targetParts: (FRows | undefined)[] = [];
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
        add(fieldsOf(b.cubes, keyShards.of(k)), codeField(code36(k), o), n);
      }
      for (const [io, n] of perIdentity) {
        const o = io % 16;
        const i = (io - o) / 16;
        add(fieldsOf(b.cubes, identityShards.of(i)), codeField(code36(i), o), n);
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
      targetParts = [];
      partTargets = 0;
      const plan = hourPlan(h, context);
      for (const b of plan.buckets) {
        const id = bucketId(b);
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
        } else {
          targets.push(bucket);
          let parts = fParts.get(bucket);
          if (parts === undefined && b.r === 'h' && partsPossible?.has(id))
            fParts.set(bucket, (parts = new FRows()));
          targetParts.push(parts);
        }
      }
      if (targets.length + partTargets > 0) {
        keepUntil = Math.max(keepUntil, plan.keepUntil);
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

    const set = code36(s);
    const sField = codeField(set, o);
    const sSuffix = setShards.of(s);
    let f: string | undefined;
    let fField: string | undefined;
    for (let t = 0; t < targets.length; t++) {
      const b = targets[t]!;
      add(fieldsOf(b.cubes, sSuffix), sField, n);
      const parts = targetParts[t];
      if (parts !== undefined) {
        parts.add(k, i, s, o, n);
        continue;
      }
      if (f === undefined) {
        f = fSuffix.get(i);
        if (f === undefined) fSuffix.set(i, (f = cubeSuffix('f', i >= 0 ? code36(i) : NO_IDENTITY_PART)));
        fField = keySetField(code36(k), set, o);
      }
      add(fieldsOf(b.cubes, f), fField!, n);
    }
  });
  flushHour();
  const shardMinRows = Math.min(minRows, SHARD_PARTS_MIN_ROWS);
  for (const [bucket, rows] of fParts) {
    writeShardParts(
      rows.toSection(),
      shardMinRows,
      (suffix, bytes) => bucket.parts.set(suffix, bytes),
      (suffix, field, n) => add(fieldsOf(bucket.cubes, suffix), field, n),
    );
  }
  for (const [bucket, hours] of partHours) {
    const tuples = { forEach: (fn: TupleVisitor) => hours.forEach((h) => counter.forEachOfHour(h, fn)) };
    for (const [cube, section] of sectionsOfTuples(tuples)) {
      if (section.rows > 0 && section.rows >= minRows)
        bucket.parts.set(partsListSuffix(cube), encodeSection(section));
      else forEachDeltaField(section, (suffix, field, n) => add(fieldsOf(bucket.cubes, suffix), field, n));
    }
  }

  const minuteTuples = counter.minuteTuples();
  const minutes = minuteTuples ? minuteIncrements(minuteTuples, context) : [];
  const written = buckets.filter((b) => b.cubes.size > 0 || b.parts.size > 0);
  // Billing zones' edges (edge-increments.ts): nothing at all for an API without zones.
  if (counter.edges) {
    const edges = edgeIncrements(counter.edges, context, minRows);
    written.push(...edges.buckets);
    keepUntil = Math.max(keepUntil, edges.keepUntil);
    required.k = Math.max(required.k, edges.required.k);
    required.i = Math.max(required.i, edges.required.i);
    required.s = Math.max(required.s, edges.required.s);
  }
  return {
    buckets: [...written, ...minutes],
    events,
    required,
    keepUntil,
    billingZones: counter.zones ?? -1,
  };
}

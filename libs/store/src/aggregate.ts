/**
 * Pre-aggregation of one API's events of a batch into counter increments (pure, no I/O).
 *
 * Two steps, because the cubes repeat every dimension several times:
 *   1. TupleCounter: count events per (hour, key, identity, tag set, outcome) — one Map update
 *      per event;
 *   2. expand: every distinct tuple adds its count to the five cubes (keys.ts: t, k, i, s, f)
 *      of every bucket its hour is written to (bucketsOfHour).
 * Events within the minute retention are counted per minute too (TupleCounter.addWithMinute), for the
 * minute buckets of groupBy=minute (minute-increments.ts); history adds none. An edge of a billing zone
 * of the API (libs/core zone-edges.ts) is one more bucket of every hour it holds whole (hour-targets.ts
 * HourTargets: the hour's tuples, no second count per event); the events of an hour an edge cuts (Kolkata's
 * 18:00-19:00 UTC) are counted in it one by one (TupleCounter.addEdge, edge-increments.ts).
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
import { hourOf, isEdgeResolution, lastHourOf } from '@va/core';
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
import { bucketId, bucketsReaching, HourTargets, sharedEdges } from './hour-targets';
import { PARTS_MIN_ROWS, type BucketIncrements, type WriteContext } from './bucket-increments';
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
export { bucketsOfHour, keepUntilOfHour, NO_EXPIRY } from './hour-targets';

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
  const hourTargets = new HourTargets(counter, context);
  // Fewer distinct tuples than minRows in all: no bucket can reach it (most APIs of the long tail, #41).
  const partsPossible =
    minRows === Infinity || counter.size < minRows
      ? undefined
      : bucketsReaching(counter, hourTargets, minRows);
  // Edges that receive one hour, written as that hour is: its increments, shared (hour-targets.ts).
  const shared = sharedEdges(
    counter,
    hourTargets,
    (b) => partsPossible?.has(bucketId(b)) === true && closedForParts(b.r, b.t, context.now),
  );
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
      const plan = hourTargets.of(h);
      for (const b of plan.buckets) {
        const id = bucketId(b);
        if (shared.has(id)) continue;
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
          if (parts === undefined && (b.r === 'h' || isEdgeResolution(b.r)) && partsPossible?.has(id))
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

  for (const { edge, hour } of shared.values()) {
    const { cubes, parts } = byBucket.get(hour)!;
    buckets.push({ r: edge.r, t: edge.t, expireAt: edge.expireAt, cubes, parts });
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

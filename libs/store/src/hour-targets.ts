/**
 * Which buckets a batch's tuples of hour h are written to (pure; the rules are aggregate.ts's header): the
 * hour's own plan (bucketsOfHour: the hour, and its day and month once compacted), shared by every API of a
 * batch, and the edges of the API's billing zones that hold the whole hour (HourTargets).
 */
import { dayOfHour, expiresAt, monthOfHour, type Retention } from '@va/core';
import type { Bucket, WriteContext } from './bucket-increments';
import type { TupleCounter } from './tuple-counter';

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

/** The buckets an event of hour h is counted in (aggregate.ts header). */
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
export interface HourPlan {
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

/**
 * A bucket of hours (r h, d or m) as one number, for expand's maps: no string per hour. A zone's edge
 * (z<n>d, z<n>m; t a minute index) is a negative number.
 */
export function bucketId({ r, t }: Bucket): number {
  if (r === 'h') return t * 4;
  if (r === 'd') return t * 4 + 1;
  if (r === 'm') return t * 4 + 2;
  return -(t * 8 + (Number(r.charAt(1)) - 1) * 2 + (r.charAt(2) === 'm' ? 1 : 0) + 1);
}

/**
 * The buckets the tuples of hour h are written to: its hour plan's, and the edges of the API's billing zones
 * that hold the whole hour (TupleCounter.wholeHourEdges; those past their retention left out), with the latest
 * expiry among them. Per expand call, memoized by hour.
 */
export class HourTargets {
  private readonly memo = new Map<number, HourPlan>();
  /** Whether any hour can have edges: else every hour is its shared plan (most APIs: no zone). */
  private readonly zoned: boolean;
  constructor(
    private readonly counter: TupleCounter,
    private readonly context: WriteContext,
  ) {
    this.zoned = counter.countsWholeHours();
  }

  of(h: number): HourPlan {
    if (!this.zoned) return hourPlan(h, this.context);
    let targets = this.memo.get(h);
    if (targets !== undefined) return targets;
    const plan = hourPlan(h, this.context);
    const edges = this.counter.wholeHourEdges(h);
    targets = plan;
    if (edges.length > 0) {
      const buckets = [...plan.buckets];
      let keepUntil = plan.keepUntil;
      for (const { res, index } of edges) {
        const expireAt = expiresAt(res, index, this.context.retention);
        if (expireAt <= this.context.now) continue;
        buckets.push({ r: res, t: index, expireAt });
        keepUntil = Math.max(keepUntil, expireAt);
      }
      targets = { buckets, keepUntil };
    }
    this.memo.set(h, targets);
    return targets;
  }
}

/**
 * The buckets (bucketId) whose hours hold at least minRows distinct tuples together. A cube's rows project
 * the tuples, so no cube of another bucket can reach minRows: its tuples go to hash fields at once (the
 * fields forEachDeltaField would give), not through five sections built to be thrown away (#41: a
 * bucket of the long tail holds one to three tuples).
 */
export function bucketsReaching(counter: TupleCounter, targets: HourTargets, minRows: number): Set<number> {
  const tuples = new Map<number, number>();
  const out = new Set<number>();
  for (const [h, n] of counter.hourSizes()) {
    for (const b of targets.of(h).buckets) {
      const id = bucketId(b);
      const sum = (tuples.get(id) ?? 0) + n;
      tuples.set(id, sum);
      if (sum >= minRows) out.add(id);
    }
  }
  return out;
}

/**
 * The edges that receive exactly one hour of the batch, whose own hour bucket is written the same way
 * (`closed`: as section parts, or as hash fields): their increments are that hour bucket's, shared rather
 * than counted again (a live batch's edge holds its open hour and nothing else). Edge bucket id -> the
 * edge, and its hour bucket's id (bucketId). The ids reaching minRows are the same for both: the same tuples.
 */
export function sharedEdges(
  counter: TupleCounter,
  targets: HourTargets,
  closed: (b: Bucket) => boolean,
): Map<number, { edge: Bucket; hour: number }> {
  const out = new Map<number, { edge: Bucket; hour: number }>();
  if (!counter.countsWholeHours()) return out;
  const hourOfEdge = new Map<number, number>(); // NaN: more than one hour
  for (const [h] of counter.hourSizes()) {
    for (const b of targets.of(h).buckets) {
      if (b.r === 'h' || b.r === 'd' || b.r === 'm') continue;
      const id = bucketId(b);
      hourOfEdge.set(id, hourOfEdge.has(id) ? NaN : h);
    }
  }
  for (const [edgeId, h] of hourOfEdge) {
    if (Number.isNaN(h)) continue;
    const buckets = targets.of(h).buckets;
    const hour = buckets.find((b) => b.r === 'h');
    const edge = buckets.find((b) => bucketId(b) === edgeId)!;
    if (hour !== undefined && closed(hour) === closed(edge)) out.set(edgeId, { edge, hour: bucketId(hour) });
  }
  return out;
}

/**
 * Which bucket holds an hour (docs/rollups.md "Retention"): the rules the planner (planner.ts) and its tests read
 * the stored buckets by. Pure.
 */
import { hoursOfDay, hoursOfMonth, type Horizons, type Resolution } from './time';

/**
 * Whether the day and month rollups hold hour h: exactly the hours compacted so far. An hour
 * after `cmp` lives in its hour bucket only, and that bucket is kept until the compactor has
 * merged it, even past the hour horizon (docs/rollups.md "Retention"), so that an hour whose
 * retention ends before it is compacted is not lost.
 */
export function inRollups(h: number, compactedThrough: number | null): boolean {
  return compactedThrough !== null && h <= compactedThrough;
}

/**
 * Whether hour h's own bucket holds it: every hour still inside hour retention, and every hour
 * not compacted yet (its bucket expires only once the compactor has merged it).
 */
export function inHourBucket(h: number, compactedThrough: number | null, horizons: Horizons): boolean {
  return h >= horizons.hour || !inRollups(h, compactedThrough);
}

/** First and last hour of a bucket. */
export function hoursOfBucket(res: Resolution, index: number): [number, number] {
  if (res === 'h') return [index, index];
  return res === 'd' ? hoursOfDay(index) : hoursOfMonth(index);
}

/** No bucket holds an hour before this one at any resolution. */
export function earliestRetainedHour(horizons: Horizons): number {
  return Math.min(horizons.hour, hoursOfDay(horizons.day)[0], hoursOfMonth(horizons.month)[0]);
}

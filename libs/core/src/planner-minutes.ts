/**
 * Read planning of groupBy=minute (docs/api.md#minute-slices): one minute bucket per minute of the range.
 *
 * Minute buckets are a family of their own (docs/design.md "The next store changes"): written for the
 * minutes within the minute retention, never rolled up, never compacted. So a minute is answered by its
 * own bucket or by nothing: there is no rollup to widen to, no subtraction and no X-Precision; the
 * range's start is checked against the retention before (parseQuery), and a plan is the same whatever
 * the compaction point.
 */
import type { BucketRead, ReadPlan } from './plan-types';
import { minuteStart } from './time';

/** The slices of a minute range (rows/slices.ts: gap filling and a time-ordered limit's edges), beside its reads. */
export { edgeMinuteSlices, minuteSlices } from './rows/slices';

export interface MinutePlanInput {
  /** Minute indices (floor(ms / 60_000)), inclusive: ParsedQuery.minutes. */
  start: number;
  end: number;
  /**
   * Slices: 'minute' (each read counts in its own minute), or none (every read counts in the one null
   * slice: the groups of the range, as the coarse plan of an hour query gives them).
   */
  granularity?: 'minute';
  /** Optional: no minute after this one can hold data (the minute of now + 5 minutes). */
  dataThroughMinute?: number;
}

/** The minute buckets answering [start, end], each in its own slice (or in the null slice). */
export function planMinuteReads(input: MinutePlanInput): ReadPlan {
  const reads: BucketRead[] = [];
  const last = Math.min(input.end, input.dataThroughMinute ?? Infinity);
  for (let n = input.start; n <= last; n++) {
    reads.push({ res: 'n', index: n, slice: input.granularity ? minuteStart(n) : null });
  }
  return { reads, precision: 'hour' };
}

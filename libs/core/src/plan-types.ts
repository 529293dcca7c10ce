/**
 * What a read plan is (planner.ts for hour, day and month slices, planner-minutes.ts for minute slices):
 * the buckets to read, the slice each counts in, and how exact the answer is.
 */
import type { BucketResolution } from './time';

export type Precision = 'hour' | 'day' | 'month';

export interface BucketRead {
  /**
   * 'n': a minute bucket (planner-minutes.ts); an EdgeResolution: a billing zone's edge (planner-billing.ts);
   * the others are planner.ts's.
   */
  res: BucketResolution;
  index: number;
  /** Start (ms) of the slice these counts belong to; null without a time granularity. */
  slice: number | null;
  /** Subtract this bucket's counts from the slice instead of adding them (planner.ts's header, edge-minutes.ts). */
  subtract?: true;
}

export interface ReadPlan {
  reads: BucketRead[];
  /** 'hour' unless a day or month rollup answered hours past the horizon beyond their slice. */
  precision: Precision;
  /**
   * Present (false) when a slice edge of the zone falls inside a UTC hour of the range that minute
   * buckets do not split (edge-minutes.ts): that hour counts whole in the slice holding its start
   * (X-Precision: hour, precision.ts).
   */
  edgesOnHours?: false;
}

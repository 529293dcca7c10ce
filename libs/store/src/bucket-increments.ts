/**
 * The shapes of a batch's writes (aggregate.ts computes them, edge-increments.ts those of billing zones' edges):
 * apart from aggregate.ts so that edge-increments.ts imports them without importing aggregate.ts (no cycle).
 */
import type { BucketResolution, Retention } from '@va/core';

/**
 * Rows from which a cube of a closed bucket is written as one section part rather than hash
 * fields (and a minute's f as one packed field, minute-increments.ts). Below it, the fields are few,
 * and a bucket that receives a trickle of late events keeps one hash per part instead of a growing
 * list of tiny parts until it is sealed again.
 */
export const PARTS_MIN_ROWS = 16;

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
   * A closed bucket's cube with at least this many rows is written as a section part (aggregate.ts's
   * header); default PARTS_MIN_ROWS, Infinity = never.
   */
  partsMinRows?: number;
}

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

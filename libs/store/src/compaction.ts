/**
 * Compaction of one API's closed hours into its day and month rollups (docs/rollups.md),
 * and what the status command shows about it. The exactness lives in the Lua scripts
 * (commands/compactNextHour-7.lua, commands/trimIndexes-4.lua); this is the loop around them.
 */
import type { RedisClient } from './connection';
import type { Retention } from '@va/core';
import { drainStaged } from './apply';
import { apiKeys, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { compactNextHours, trimIndexes, type CompactStep } from './scripts/compaction-scripts';

export interface CompactOptions {
  /** Last hour index that may be compacted (closed, grace period over). */
  closedBound: number;
  retention: Retention;
  /** Unix ms: decides which rollups are still retained and which index entries are dropped. */
  now: number;
  /** Stop after this many hours (the next job continues); default: until done. */
  maxHours?: number;
  /** Called after every compacted hour (metrics, progress). */
  onHour?: (hour: number) => void;
  /** Stop between two hours once aborted (graceful shutdown); the next run continues. */
  signal?: AbortSignal;
}

export interface CompactResult {
  hoursCompacted: number;
  /** cmp after the run; null when the API has never been compacted (and maxHours was 0). */
  compactedThrough: number | null;
  /** False when maxHours or the signal stopped the run before the bound. */
  done: boolean;
  /** Index entries dropped by retention: hours, days, months. */
  trimmed: [number, number, number];
}

/** A compaction point as Redis keeps it (`cmp`, absent = none yet). */
const pointOf = (raw: unknown): number | null => (raw === null || raw === undefined ? null : Number(raw));

/**
 * How long compaction waits before it asks again while a reader holds it (keys.ts `hold`): the
 * hold lasts a reader's plan and reads at most (holdCompaction).
 */
const HELD_RETRY_MS = 5;

/** compactNextHour calls per round trip at most (compactApi): each stays one atomic, bounded call. */
const STEPS_MAX = 32;

/**
 * The shortest and the longest hold (holdCompaction). A reader asks for about twice what its last
 * attempt took: a reader whose Redis is far away, or whose process is busy, takes longer than a
 * local one, and a hold that ends before its reads do makes it plan again for nothing. The longest
 * bounds how long a reader that died while holding defers compaction.
 */
export const COMPACTION_HOLD_MS = 250;
export const COMPACTION_HOLD_MAX_MS = 5_000;

/**
 * Asks the compactor to leave the API's compaction point where it is for `holdMs` (clamped to
 * COMPACTION_HOLD_MS..COMPACTION_HOLD_MAX_MS), and returns the point it holds, read in the same
 * transaction: a reader whose reads a moving point invalidated again and again (a compaction
 * catch-up moves it every millisecond or so) then plans against the point that holds, not one the
 * compactor moved past between the reader's last read and the hold. Liveness only: compaction
 * defers a few steps; nothing about exactness depends on it.
 */
export async function holdCompaction(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  holdMs = COMPACTION_HOLD_MS,
): Promise<number | null> {
  const keys = apiKeys(space, apiId);
  const ms = Math.round(Math.min(COMPACTION_HOLD_MAX_MS, Math.max(COMPACTION_HOLD_MS, holdMs)));
  const replies = await redis
    .multi()
    .set(keys.compactionHold, '1', 'PX', ms)
    .get(keys.compactedThrough)
    .exec();
  const [error, cmp] = replies?.[1] ?? [new Error('holdCompaction: the transaction was discarded'), null];
  if (error) throw error;
  return pointOf(cmp);
}

/** Ends a hold once the reader's read succeeded (another reader holding too sets it again if it must). */
export async function releaseCompaction(redis: RedisClient, space: KeySpace, apiId: string): Promise<void> {
  await redis.del(apiKeys(space, apiId).compactionHold);
}

/**
 * Runs compactNextHour until nothing is left up to the bound. Safe to run concurrently with
 * itself and with ingest, and to kill at any instant: each step is one atomic script.
 */
export async function compactApi(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  options: CompactOptions,
): Promise<CompactResult> {
  const { closedBound, retention, now } = options;
  const trimmed = await trimIndexes(redis, space, apiId, retention, now);
  const max = options.maxHours ?? Infinity;
  let hoursCompacted = 0;
  // Steps per round trip: doubled while every step compacted an hour (a catch-up of many hours), so
  // that an API with a long backlog costs a round trip per STEPS_MAX hours rather than per hour, and
  // one with a single hour left pays few calls that only answer `done`.
  let steps = 1;
  for (;;) {
    if (hoursCompacted >= max || options.signal?.aborted) {
      return {
        hoursCompacted,
        compactedThrough: await readCompactedThrough(redis, space, apiId),
        done: false,
        trimmed,
      };
    }
    const count = Math.min(steps, max - hoursCompacted);
    const replies = await compactNextHours(redis, space, apiId, { closedBound, now, retention }, count);
    for (const step of replies) {
      if (step.kind !== 'hour') continue;
      hoursCompacted++;
      options.onHour?.(step.hour);
    }
    // The last step says where the API stands (a hold may end, or a stage be drained, between two calls).
    const last: CompactStep = replies[replies.length - 1]!;
    if (last.kind === 'hour') {
      steps = replies.every((step) => step.kind === 'hour') ? Math.min(steps * 2, STEPS_MAX) : 1;
      continue;
    }
    steps = 1;
    if (last.kind === 'done') {
      return { hoursCompacted, compactedThrough: last.cmp, done: true, trimmed };
    }
    if (last.kind === 'staged') {
      await drainStaged(redis, space, [apiId]);
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
  }
}

export async function readCompactedThrough(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
): Promise<number | null> {
  const raw = await redis.get(apiKeys(space, apiId).compactedThrough);
  return pointOf(raw);
}

export interface CompactionStatus {
  apiId: string;
  compactedThrough: number | null;
  /** Hours holding data, after cmp and <= the closed bound: the compactor's backlog. */
  waitingHours: number;
}

/** cmp and backlog of each API: two pipelined round trips (per-key commands: fine on a cluster). */
export async function compactionStatus(
  redis: RedisClient,
  space: KeySpace,
  apiIds: readonly string[],
  closedBound: number,
): Promise<CompactionStatus[]> {
  const cmpReads = newPipeline(redis);
  for (const apiId of apiIds) cmpReads.get(apiKeys(space, apiId).compactedThrough);
  const cmps = (await execPipeline(cmpReads)) as (string | null)[];
  const counts = newPipeline(redis);
  apiIds.forEach((apiId, n) => {
    const cmp = cmps[n];
    counts.zcount(apiKeys(space, apiId).bucketIndex('h'), cmp == null ? '-inf' : `(${cmp}`, closedBound);
  });
  const waiting = (await execPipeline(counts)) as number[];
  return apiIds.map((apiId, n) => {
    const cmp = cmps[n];
    return { apiId, compactedThrough: pointOf(cmp), waitingHours: Number(waiting[n]) };
  });
}

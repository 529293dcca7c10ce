/**
 * Compaction of one API's closed hours into its day and month rollups (docs/rollups.md),
 * and what the status command shows about it. The exactness lives in the Lua scripts
 * (commands/compactNextHour-7.lua, commands/trimIndexes-4.lua); this is the loop around them.
 */
import type { RedisClient } from './connection';
import { horizonsAt, type Retention } from '@va/core';
import { drainStaged } from './apply';
import { command } from './commands';
import { apiKeys, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';

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

type CompactReply = ['hour', string, number] | ['done', string] | ['held'] | ['staged'];

/**
 * How long compaction waits before it asks again while a reader holds it (keys.ts `hold`): the
 * hold lasts COMPACTION_HOLD_MS at most, a reader's few round trips.
 */
const HELD_RETRY_MS = 5;

/**
 * How long a reader holds the compaction of an API at most (set by holdCompaction, ended by
 * releaseCompaction as soon as its read succeeded): long enough for a plan and its reads.
 */
export const COMPACTION_HOLD_MS = 250;

/**
 * Asks the compactor to leave the API's compaction point where it is for COMPACTION_HOLD_MS: a
 * reader whose reads a moving point invalidated again and again (a compaction catch-up moves it
 * every millisecond or so) then plans against a point that holds. Liveness only: compaction defers
 * a few steps; nothing about exactness depends on it.
 */
export async function holdCompaction(redis: RedisClient, space: KeySpace, apiId: string): Promise<void> {
  await redis.set(apiKeys(space, apiId).compactionHold, '1', 'PX', COMPACTION_HOLD_MS);
}

/** Ends a hold once the reader's read succeeded (another reader holding too sets it again if it must). */
export async function releaseCompaction(redis: RedisClient, space: KeySpace, apiId: string): Promise<void> {
  await redis.del(apiKeys(space, apiId).compactionHold);
}

/**
 * Drops index entries of buckets past retention (the buckets expire by themselves); an hour not
 * compacted yet keeps its entry (its bucket waits for the compactor).
 */
export async function trimIndexes(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  retention: Retention,
  now: number,
): Promise<[number, number, number]> {
  const keys = apiKeys(space, apiId);
  const hz = horizonsAt(now, retention);
  const trim = command<[number, number, number]>(redis, 'trimIndexes');
  return trim(
    keys.bucketIndex('h'),
    keys.bucketIndex('d'),
    keys.bucketIndex('m'),
    keys.compactedThrough,
    hz.hour,
    hz.day,
    hz.month,
  );
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
  const keys = apiKeys(space, apiId);
  const trimmed = await trimIndexes(redis, space, apiId, retention, now);
  const next = command<CompactReply>(redis, 'compactNextHour');
  const max = options.maxHours ?? Infinity;
  let hoursCompacted = 0;
  for (;;) {
    if (hoursCompacted >= max || options.signal?.aborted) {
      return {
        hoursCompacted,
        compactedThrough: await readCompactedThrough(redis, space, apiId),
        done: false,
        trimmed,
      };
    }
    const reply = await next(
      keys.compactedThrough,
      keys.bucketIndex('h'),
      keys.bucketIndex('d'),
      keys.bucketIndex('m'),
      keys.dirty,
      keys.compactionHold,
      keys.stage,
      keys.bucketRoot,
      closedBound,
      now,
      retention.dayMs,
      retention.monthMs,
      retention.hourMs,
    );
    if (reply[0] === 'done') {
      return { hoursCompacted, compactedThrough: Number(reply[1]), done: true, trimmed };
    }
    if (reply[0] === 'staged') {
      await drainStaged(redis, space, [apiId]);
      continue;
    }
    if (reply[0] === 'held') {
      await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
      continue;
    }
    hoursCompacted++;
    options.onHour?.(Number(reply[1]));
  }
}

export async function readCompactedThrough(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
): Promise<number | null> {
  const raw = await redis.get(apiKeys(space, apiId).compactedThrough);
  return raw === null ? null : Number(raw);
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
    return { apiId, compactedThrough: cmp == null ? null : Number(cmp), waitingHours: Number(waiting[n]) };
  });
}

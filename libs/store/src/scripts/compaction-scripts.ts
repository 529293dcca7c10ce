/**
 * The two Lua commands of compaction (docs/rollups.md), each with its KEYS/ARGV and its reply
 * decoded side by side: compactNextHour-7.lua (one closed hour merged into its day and month) and
 * trimIndexes-4.lua (index entries past retention dropped). compaction.ts runs the loop around them.
 */
import { horizonsAt, type Retention } from '@va/core';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import { apiKeys, type KeySpace } from '../keys';
import { execPipeline, newPipeline, queueCommand } from '../pipeline';

/** What one compactNextHour call did. */
export type CompactStep =
  /** Hour `hour` merged; `fields` = counters and section parts added to each rollup. */
  | { kind: 'hour'; hour: number; fields: number }
  /** Nothing left up to the bound; `cmp` as it now stands. */
  | { kind: 'done'; cmp: number }
  /** A reader holds compaction: nothing done; ask again shortly. */
  | { kind: 'held' }
  /** Chunks are staged: nothing done; apply them (applyStagedChunk), then ask again. */
  | { kind: 'staged' };

export interface CompactBound {
  /** Last hour index that may be compacted. */
  closedBound: number;
  /** Unix ms: a rollup whose expiry is not after it is not written. */
  now: number;
  retention: Retention;
}

export function decodeCompactStep(reply: unknown): CompactStep {
  const [kind, a, b] = reply as [string, string?, number?];
  switch (kind) {
    case 'hour':
      return { kind, hour: Number(a), fields: Number(b) };
    case 'done':
      return { kind, cmp: Number(a) };
    case 'held':
    case 'staged':
      return { kind };
    default:
      throw new Error(`compactNextHour: unexpected reply ${JSON.stringify(reply)}`);
  }
}

/** The KEYS and ARGV of compactNextHour-7.lua for one API. */
function compactNextHourArgs(
  space: KeySpace,
  apiId: string,
  { closedBound, now, retention }: CompactBound,
): (string | number)[] {
  const { compactedThrough, bucketIndexes, dirty, compactionHold, stage, bucketRoot } = apiKeys(space, apiId);
  const keys = [compactedThrough, ...bucketIndexes, dirty, compactionHold, stage, bucketRoot];
  return [...keys, closedBound, now, retention.dayMs, retention.monthMs, retention.hourMs];
}

/** compactNextHour-7.lua: compacts the API's next closed hour, atomically. */
export async function compactNextHour(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  bound: CompactBound,
): Promise<CompactStep> {
  const reply = await command<unknown>(redis, 'compactNextHour')(...compactNextHourArgs(space, apiId, bound));
  return decodeCompactStep(reply);
}

/**
 * `count` compactNextHour-7.lua calls of one API in one round trip, their steps in order. Each call is
 * atomic and finds the next hour after the cmp it reads itself, so the calls compact up to `count`
 * hours one after the other, exactly as `count` round trips would; calls after a `done`, `held` or
 * `staged` answer the same without writing.
 */
export async function compactNextHours(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  bound: CompactBound,
  count: number,
): Promise<CompactStep[]> {
  const args = compactNextHourArgs(space, apiId, bound);
  const pipeline = newPipeline(redis);
  for (let n = 0; n < count; n++) queueCommand(redis, pipeline, 'compactNextHour', args);
  return (await execPipeline(pipeline)).map(decodeCompactStep);
}

/**
 * trimIndexes-4.lua: drops index entries of buckets past retention at `now` (the buckets expire by
 * themselves); an hour not compacted yet keeps its entry (its bucket waits for the compactor).
 * Returns the entries dropped: hours, days, months.
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
  const reply = await command<unknown>(redis, 'trimIndexes')(
    ...keys.bucketIndexes,
    keys.compactedThrough,
    hz.hour,
    hz.day,
    hz.month,
  );
  const [hours, days, months] = reply as [number, number, number];
  return [Number(hours), Number(days), Number(months)];
}

/**
 * Progress of the writers: the partition watermark `wm` (every message through it is applied)
 * and, per API, `off` (the last offset of the partition whose messages of that API are applied),
 * plus `cmp`, the last compacted hour of an API. docs/design.md "Write path: exactly once".
 * None (no message applied yet / no hour compacted) is null in every read here (scripts/none.ts).
 */
import type { RedisClient } from './connection';
import { apiKeys, globalKeys, partitionField, watermarkKey, type KeySpace } from './keys';
import { execPipeline, newPipeline, type ReplicaWait } from './pipeline';
import { noneOf } from './scripts/none';
import { decodeConfirmOffset, queueConfirmOffset, type ConfirmResult } from './scripts/watermark-scripts';

const numberOr = (raw: string | null | undefined, fallback: number): number =>
  raw === null || raw === undefined ? fallback : Number(raw);

export async function readWatermark(
  redis: RedisClient,
  space: KeySpace,
  topic: string,
  partition: number,
): Promise<number | null> {
  return noneOf(await redis.hget(watermarkKey(space), partitionField(topic, partition)));
}

export async function readWatermarks(
  redis: RedisClient,
  space: KeySpace,
  partitions: readonly { topic: string; partition: number }[],
): Promise<(number | null)[]> {
  if (partitions.length === 0) return [];
  const raw = await redis.hmget(
    watermarkKey(space),
    ...partitions.map((p) => partitionField(p.topic, p.partition)),
  );
  return raw.map(noneOf);
}

/** off[api] of one partition for many APIs, and cmp of those APIs (one pipeline). */
export async function readApiProgress(
  redis: RedisClient,
  space: KeySpace,
  offsetField: string,
  apiIds: readonly string[],
): Promise<{ off: (number | null)[]; cmp: (number | null)[] }> {
  if (apiIds.length === 0) return { off: [], cmp: [] };
  const pipeline = newPipeline(redis);
  for (const apiId of apiIds) {
    const keys = apiKeys(space, apiId);
    pipeline.hget(keys.offsets, offsetField);
    pipeline.get(keys.compactedThrough);
  }
  const replies = (await execPipeline(pipeline)) as (string | null)[];
  return {
    off: apiIds.map((_, n) => noneOf(replies[2 * n])),
    cmp: apiIds.map((_, n) => noneOf(replies[2 * n + 1])),
  };
}

export interface OffsetToConfirm {
  apiId: string;
  /** "<topic>/<partition>" */
  offsetField: string;
  /** off[api] the writer found applied and is about to move the watermark past. */
  off: number;
}

/**
 * The replica wait for writes made earlier, maybe by another connection or another writer (a batch whose
 * WAIT failed, found applied by its retry): writes each off[api] again, unchanged, when it still holds
 * `off` (confirmOffset-1.lua), and WAITs after it on every master involved. Throws ReplicaAckError when
 * fewer replicas than asked hold it; `off` where the offset is not what the writer relies on any more.
 */
export async function confirmOffsets(
  redis: RedisClient,
  space: KeySpace,
  offsets: readonly OffsetToConfirm[],
  wait: ReplicaWait,
): Promise<ConfirmResult[]> {
  if (offsets.length === 0) return [];
  const pipeline = newPipeline(redis);
  for (const { apiId, offsetField, off } of offsets)
    queueConfirmOffset(redis, pipeline, space, apiId, offsetField, off);
  return (await execPipeline(pipeline, wait)).map(decodeConfirmOffset);
}

/** The counter generation (`<p>:gen`, absent = 1). */
export async function readGeneration(redis: RedisClient, prefix: string): Promise<number> {
  return numberOr(await redis.get(globalKeys(prefix).generation), 1);
}

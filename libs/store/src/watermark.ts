/**
 * Progress of the writers: the partition watermark `wm` (every message through it is applied)
 * and, per API, `off` (the last offset of the partition whose messages of that API are applied),
 * plus `cmp`, the last compacted hour of an API. docs/design.md "Write path: exactly once".
 * -1 stands for "none" everywhere (no message applied yet / no hour compacted).
 */
import type { RedisClient } from './connection';
import { command } from './commands';
import { apiKeys, globalKeys, partitionField, watermarkKey, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';

const numberOr = (raw: string | null | undefined, fallback: number): number =>
  raw === null || raw === undefined ? fallback : Number(raw);

export async function readWatermark(
  redis: RedisClient,
  space: KeySpace,
  topic: string,
  partition: number,
): Promise<number> {
  return numberOr(await redis.hget(watermarkKey(space), partitionField(topic, partition)), -1);
}

export async function readWatermarks(
  redis: RedisClient,
  space: KeySpace,
  partitions: readonly { topic: string; partition: number }[],
): Promise<number[]> {
  if (partitions.length === 0) return [];
  const raw = await redis.hmget(
    watermarkKey(space),
    ...partitions.map((p) => partitionField(p.topic, p.partition)),
  );
  return raw.map((r) => numberOr(r, -1));
}

export type AdvanceResult = { ok: true } | { ok: false; actual: number };

/** CAS wm: expected -> next. */
export async function advanceWatermark(
  redis: RedisClient,
  space: KeySpace,
  topic: string,
  partition: number,
  expected: number,
  next: number,
): Promise<AdvanceResult> {
  const reply = await command<[number, string?]>(redis, 'advanceWatermark')(
    watermarkKey(space),
    partitionField(topic, partition),
    expected,
    next,
  );
  return reply[0] === 1 ? { ok: true } : { ok: false, actual: numberOr(reply[1], -1) };
}

/** off[api] of one partition for many APIs, and cmp of those APIs (one pipeline). */
export async function readApiProgress(
  redis: RedisClient,
  space: KeySpace,
  offsetField: string,
  apiIds: readonly string[],
): Promise<{ off: number[]; cmp: number[] }> {
  if (apiIds.length === 0) return { off: [], cmp: [] };
  const pipeline = newPipeline(redis);
  for (const apiId of apiIds) {
    const keys = apiKeys(space, apiId);
    pipeline.hget(keys.offsets, offsetField);
    pipeline.get(keys.compactedThrough);
  }
  const replies = (await execPipeline(pipeline)) as (string | null)[];
  return {
    off: apiIds.map((_, n) => numberOr(replies[2 * n], -1)),
    cmp: apiIds.map((_, n) => numberOr(replies[2 * n + 1], -1)),
  };
}

/** The counter generation (`<p>:gen`, absent = 1). */
export async function readGeneration(redis: RedisClient, prefix: string): Promise<number> {
  return numberOr(await redis.get(globalKeys(prefix).generation), 1);
}

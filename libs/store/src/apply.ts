/**
 * The Redis side of applying a batch: one applyApiBatch script call per API, all pipelined
 * (one round trip), each atomic on its own (every key of an API shares the slot {api}). With
 * `wait`, the replicas must hold them too before this returns (pipeline.ts, ReplicaWait).
 *
 * An API whose increments take more than `maxWritesPerCall` writes has its hour buckets staged by
 * its call (staged-chunks.ts) and applied here right after, one chunk per applyStagedChunk call
 * (one more round trip): each call is bounded, and other clients' commands run in between.
 */
import type { RedisClient } from './connection';
import type { ApiIncrements } from './aggregate';
import type { AlertIncrements } from './alert-detection';
import {
  applyStagedChunk,
  decodeStagedChunkReply,
  parseApplyReply,
  queueApplyApiBatch,
  queueApplyStagedChunk,
  type ApplyCas,
  type ApplyResult,
} from './scripts/apply-scripts';
import { apiKeys, type KeySpace } from './keys';
import { execPipeline, newPipeline, type ReplicaWait } from './pipeline';
import { confirmOffsets } from './watermark';

export interface ApiApply {
  apiId: string;
  increments: ApiIncrements;
  cas: ApplyCas;
  /** The alert counters' increments (docs/alerts.md "Detection"); absent: the rules' version is not checked. */
  alerts?: AlertIncrements;
}

export interface ApplyOptions {
  wait?: ReplicaWait;
  /** Writes per script call (staged-chunks.ts WRITES; default: unbounded); above it the hour buckets are staged in chunks. */
  maxWritesPerCall?: number;
}

export async function applyApiBatches(
  redis: RedisClient,
  space: KeySpace,
  applies: readonly ApiApply[],
  options: ApplyOptions = {},
): Promise<ApplyResult[]> {
  if (applies.length === 0) return [];
  const pipeline = newPipeline(redis);
  const staged: number[] = [];
  for (const { apiId, increments, cas, alerts } of applies) {
    staged.push(
      queueApplyApiBatch(redis, pipeline, {
        space,
        apiId,
        increments,
        cas,
        ...(options.maxWritesPerCall === undefined ? {} : { maxWrites: options.maxWritesPerCall }),
        ...(alerts === undefined ? {} : { alerts }),
      }),
    );
  }
  const results = (await execPipeline(pipeline, options.wait)).map(parseApplyReply);
  const drains = newPipeline(redis);
  /** Per API that staged chunks: the position of its last chunk call in `drains`. */
  const lastCall = new Map<string, number>();
  let calls = 0;
  results.forEach((result, n) => {
    if (result.status !== 'ok' || staged[n] === 0) return;
    for (let c = 0; c < staged[n]!; c++, calls++)
      queueApplyStagedChunk(redis, drains, space, applies[n]!.apiId);
    lastCall.set(applies[n]!.apiId, calls - 1);
  });
  // The chunks are in Redis with the offset: a crash here leaves them to drainStaged. They are writes
  // of the batch too: the replica wait goes with them.
  if (calls === 0) return results;
  const waiting = (await execPipeline(drains, options.wait)).map(decodeStagedChunkReply);
  // Another writer of the same API (another partition) may have staged chunks in between, which
  // these calls applied in place of some of ours: go on until the stage is empty, so that the
  // watermark never moves past a batch whose chunks wait (nor before a replica holds them).
  const left = [...lastCall].filter(([, call]) => waiting[call]! > 0).map(([apiId]) => apiId);
  await drainStaged(redis, space, left);
  if (left.length > 0 && options.wait && options.wait.replicas > 0) {
    const cas = new Map(applies.map((a) => [a.apiId, a.cas]));
    const offsets = left.map((apiId) => ({
      apiId,
      offsetField: cas.get(apiId)!.offsetField,
      off: cas.get(apiId)!.newOff,
    }));
    const confirmed = await confirmOffsets(redis, space, offsets, options.wait);
    if (confirmed.some((c) => c.status !== 'ok'))
      throw new Error('off[api] moved while its chunks were applied');
  }
  return results;
}

/**
 * Applies whatever the APIs still have staged (a writer that staged chunks and died before applying
 * them): before compacting, before a rebuild copies an API, when a writer reads its progress. One
 * round trip when nothing is staged. Returns the chunks applied.
 */
export async function drainStaged(
  redis: RedisClient,
  space: KeySpace,
  apiIds: readonly string[],
): Promise<number> {
  if (apiIds.length === 0) return 0;
  const lengths = newPipeline(redis);
  for (const apiId of apiIds) lengths.llen(apiKeys(space, apiId).stage);
  const waiting = (await execPipeline(lengths)) as number[];
  let applied = 0;
  for (const [n, apiId] of apiIds.entries()) {
    for (let left = waiting[n]!; left > 0; applied++) left = await applyStagedChunk(redis, space, apiId);
  }
  return applied;
}

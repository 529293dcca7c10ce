/**
 * The Redis side of applying a batch: one applyApiBatch script call per API, all pipelined
 * (one round trip), each atomic on its own (every key of an API shares the slot {api}). With
 * `wait`, the replicas must hold them too before this returns (pipeline.ts, ReplicaWait).
 */
import type { RedisClient } from './connection';
import type { ApiIncrements } from './aggregate';
import { applyApiBatchArgs, parseApplyReply, type ApplyCas, type ApplyResult } from './apply-args';
import type { KeySpace } from './keys';
import { execPipeline, newPipeline, queueCommand, type ReplicaWait } from './pipeline';

export interface ApiApply {
  apiId: string;
  increments: ApiIncrements;
  cas: ApplyCas;
}

export async function applyApiBatches(
  redis: RedisClient,
  space: KeySpace,
  applies: readonly ApiApply[],
  wait?: ReplicaWait,
): Promise<ApplyResult[]> {
  if (applies.length === 0) return [];
  const pipeline = newPipeline(redis);
  for (const { apiId, increments, cas } of applies) {
    queueCommand(redis, pipeline, 'applyApiBatch', applyApiBatchArgs(space, apiId, increments, cas));
  }
  return (await execPipeline(pipeline, wait)).map(parseApplyReply);
}

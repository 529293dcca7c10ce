/** The API's meta a read plans with: its compaction point and the first bucket holding data. */
import type { ChainableCommander } from 'ioredis';
import { type RedisClient } from '../connection';
import { hoursOfDay, hoursOfMonth } from '@va/core';
import { apiKeys, type KeySpace } from '../keys';
import { execPipeline, newPipeline } from '../pipeline';

export interface ApiMeta {
  /** Last hour compacted into the rollups; null = none yet. */
  compactedThrough: number | null;
  /** First hour of the earliest bucket that holds data at any resolution; null = no data. */
  firstHour: number | null;
  /**
   * With `billingZone`: unix ms from which every event is counted in that zone's edges; null = not counted
   * yet (docs/api.md#billing-zones).
   */
  billingSince?: number | null;
}

export const parseIndex = (raw: unknown): number | null => {
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
};

export interface ApiMetaOptions {
  /** Read the first bucket of each resolution (ApiMeta.firstHour). */
  firstHour: boolean;
  /** Read since when this billing zone's edges are counted (ApiMeta.billingSince). */
  billingZone?: number | undefined;
}

/** The compaction point and (when `firstHour`) the first bucket of each resolution. */
export async function readApiMeta(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  options: ApiMetaOptions,
): Promise<ApiMeta> {
  const pipeline = newPipeline(redis);
  const parse = queueApiMeta(pipeline, space, apiId, options);
  return parse(await execPipeline(pipeline));
}

/**
 * Queues readApiMeta's commands on a pipeline that may carry others (the query service sends them
 * with its limits, one round trip); the returned function reads their replies out of the pipeline's,
 * at the positions they were queued at.
 */
export function queueApiMeta(
  pipeline: ChainableCommander,
  space: KeySpace,
  apiId: string,
  options: ApiMetaOptions,
): (replies: readonly unknown[]) => ApiMeta {
  const keys = apiKeys(space, apiId);
  const at = pipeline.length;
  pipeline.get(keys.compactedThrough);
  if (options.firstHour) {
    for (const r of ['h', 'd', 'm'] as const) pipeline.zrange(keys.bucketIndex(r), 0, 0, 'WITHSCORES');
  }
  const billing = options.billingZone;
  if (billing !== undefined) pipeline.hget(keys.billingZoneSince, String(billing));
  const count = pipeline.length - at;
  return (replies) => {
    const mine = replies.slice(at, at + count);
    const since = billing === undefined ? undefined : parseIndex(mine.pop());
    const [cmp, ...firsts] = mine;
    let firstHour: number | null = null;
    firsts.forEach((reply, n) => {
      const index = parseIndex(Array.isArray(reply) ? reply[1] : undefined);
      if (index === null) return;
      const hour = n === 0 ? index : n === 1 ? hoursOfDay(index)[0] : hoursOfMonth(index)[0];
      if (firstHour === null || hour < firstHour) firstHour = hour;
    });
    const meta: ApiMeta = { compactedThrough: parseIndex(cmp), firstHour };
    if (since !== undefined) meta.billingSince = since;
    return meta;
  };
}

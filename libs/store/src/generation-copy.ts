/**
 * Starting a new generation g' from the current one g (docs/rebuild.md): per API, its
 * dictionaries and, with a --since boundary, its buckets before the boundary are copied into g'
 * by one atomic script (copyApiGeneration-2.lua), which also records in g' what g had applied
 * of that API at that instant (the "carry"). The rebuild's consumer then skips an event before
 * the boundary exactly when the copy already carried it.
 */
import type { RedisClient } from './connection';
import { drainStaged } from './apply';
import { apiKeys, watermarkKey, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { tryCopyApiGeneration, type CarryBoundary } from './scripts/generation-scripts';

export type CopyResult = { status: 'copied'; buckets: number } | { status: 'already' };

export async function copyApiGeneration(
  redis: RedisClient,
  source: KeySpace,
  target: KeySpace,
  apiId: string,
  boundary: CarryBoundary | null,
): Promise<CopyResult> {
  let step = await tryCopyApiGeneration(redis, source, target, apiId, boundary);
  while (step.status === 'staged') {
    await drainStaged(redis, source, [apiId]);
    step = await tryCopyApiGeneration(redis, source, target, apiId, boundary);
  }
  if (step.status === 'ok') return { status: 'copied', buckets: step.buckets };
  if (step.status === 'done') return { status: 'already' };
  throw new Error(`generation ${target.generation} is not empty: ${step.key} exists`);
}

/** Carry marker field of the carry hash (not a partition). */
const DONE_FIELD = '@';

/**
 * apiId -> "<topic>/<partition>" -> last offset of that API the copy carried over (APIs that
 * were not copied have no entry: nothing of theirs was carried).
 */
export async function readCarries(
  redis: RedisClient,
  target: KeySpace,
  apiIds: readonly string[],
): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  for (let n = 0; n < apiIds.length; n += 500) {
    const slice = apiIds.slice(n, n + 500);
    const pipeline = newPipeline(redis);
    for (const apiId of slice) pipeline.hgetall(apiKeys(target, apiId).carry);
    const replies = (await execPipeline(pipeline)) as Record<string, string>[];
    slice.forEach((apiId, m) => {
      const fields = Object.entries(replies[m] ?? {}).filter(([f]) => f !== DONE_FIELD);
      if (fields.length > 0) out.set(apiId, new Map(fields.map(([f, v]) => [f, Number(v)])));
    });
  }
  return out;
}

/**
 * Sets wm of g' for partitions that have none yet (HSETNX: a resumed rebuild keeps its start):
 * the rebuild's consumer, like the ingest worker, starts each partition at wm + 1.
 */
export async function initWatermarks(
  redis: RedisClient,
  target: KeySpace,
  starts: readonly { field: string; wm: number }[],
): Promise<void> {
  const pipeline = newPipeline(redis);
  for (const { field, wm } of starts) if (wm >= 0) pipeline.hsetnx(watermarkKey(target), field, wm);
  await execPipeline(pipeline);
}

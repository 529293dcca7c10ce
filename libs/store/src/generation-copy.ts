/**
 * Starting a new generation g' from the current one g (docs/rebuild.md): per API, its
 * dictionaries and, with a --since boundary, its buckets before the boundary are copied into g'
 * by one atomic script (copyApiGeneration-2.lua), which also records in g' what g had applied
 * of that API at that instant (the "carry"). The rebuild's consumer then skips an event before
 * the boundary exactly when the copy already carried it.
 */
import type { RedisClient } from './connection';
import { drainStaged } from './apply';
import { command } from './commands';
import { apiKeys, watermarkKey, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';

/** First hour, day and month index of the rebuilt range (all three start at one month start). */
export interface CarryBoundary {
  hour: number;
  day: number;
  month: number;
}

export type CopyResult = { status: 'copied'; buckets: number } | { status: 'already' };

export async function copyApiGeneration(
  redis: RedisClient,
  source: KeySpace,
  target: KeySpace,
  apiId: string,
  boundary: CarryBoundary | null,
): Promise<CopyResult> {
  const from = apiKeys(source, apiId);
  const to = apiKeys(target, apiId);
  const copy = command<[string, (number | string)?]>(redis, 'copyApiGeneration');
  const args = [
    from.offsets,
    to.carry,
    from.bucketRoot,
    to.bucketRoot,
    boundary ? '1' : '0',
    boundary?.hour ?? 0,
    boundary?.day ?? 0,
    boundary?.month ?? 0,
  ];
  let reply = await copy(...args);
  while (reply[0] === 'staged') {
    await drainStaged(redis, source, [apiId]);
    reply = await copy(...args);
  }
  if (reply[0] === 'ok') return { status: 'copied', buckets: Number(reply[1]) };
  if (reply[0] === 'done') return { status: 'already' };
  throw new Error(`generation ${target.generation} is not empty: ${String(reply[1])} exists`);
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

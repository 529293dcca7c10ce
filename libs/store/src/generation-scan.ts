/**
 * What a rebuild needs to know of a generation's data before it starts: the earliest time any API
 * still holds counts for (for the topic coverage check). Precision is the bucket: a month rollup
 * counts from its month's start, which errs on the safe side (older than the data may be).
 */
import type { RedisClient } from './connection';
import { hourStart, dayStart, monthStart } from '@va/core';
import { apiKeys, RESOLUTIONS, type KeySpace, type Resolution } from './keys';
import { execPipeline, newPipeline } from './pipeline';

const startOf: Record<Resolution, (t: number) => number> = { h: hourStart, d: dayStart, m: monthStart };

/** Unix ms of the start of the oldest bucket holding data over the APIs; null = no data at all. */
export async function oldestCountedTime(
  redis: RedisClient,
  space: KeySpace,
  apiIds: readonly string[],
): Promise<number | null> {
  let oldest: number | null = null;
  for (let n = 0; n < apiIds.length; n += 300) {
    const slice = apiIds.slice(n, n + 300);
    const pipeline = newPipeline(redis);
    for (const apiId of slice) {
      for (const r of RESOLUTIONS) pipeline.zrange(apiKeys(space, apiId).bucketIndex(r), 0, 0);
    }
    const replies = (await execPipeline(pipeline)) as string[][];
    replies.forEach((first, i) => {
      if (first.length === 0) return;
      const start = startOf[RESOLUTIONS[i % RESOLUTIONS.length]!](Number(first[0]));
      if (oldest === null || start < oldest) oldest = start;
    });
  }
  return oldest;
}

/** Every member of `<p>:apis` (SSCAN: the set may be large). */
export async function listApis(redis: RedisClient, apisKey: string): Promise<string[]> {
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, members] = await redis.sscan(apisKey, cursor, 'COUNT', 1000);
    for (const m of members) out.add(m);
    cursor = next;
  } while (cursor !== '0');
  return [...out].sort();
}

/**
 * Redis memory of the data set. Two views:
 *   - used_memory (INFO) minus the baseline taken before the data set was produced, divided by the
 *     number of stored counters = hash fields under the bench prefix (SCAN + HLEN): what a counter
 *     costs the server, overhead included;
 *   - the sum of MEMORY USAGE over the prefix's keys: the same from the keys' side, which stays
 *     right when the server was restarted since (a reloaded AOF packs memory differently).
 * Counter hashes are split by resolution (keys.ts: `<p>:g<g>:{api}:<r>:<t>:<cube>[:<part>]`) and
 * by encoding: a hash past hash-max-listpack-entries turns into a hashtable, several times bigger.
 * MEMORY USAGE is also summed per key family (familyOf): sealed sections per resolution and cube,
 * delta and sealing hashes per resolution and cube, parts sets, dictionaries, bucket indexes.
 */
import type { Redis } from 'ioredis';
import { usedMemory } from '../redis-info';
import { scanPrefix } from '../redis-keys';

export interface MemoryResult {
  usedMemoryBytes: number;
  baselineBytes: number;
  /** used_memory - baseline. */
  dataSetBytes: number;
  keys: number;
  hashKeys: number;
  /** Every hash field under the prefix: the stored counters (plus a few dictionary-index fields). */
  hashFields: number;
  /** Counter fields by resolution (hour, day, month buckets). */
  counterFields: { h: number; d: number; m: number };
  /** Dictionary index fields (value -> code), included in hashFields. */
  dictionaryFields: number;
  bytesPerCounter: number;
  memoryUsageBytes: number;
  bytesPerCounterByMemoryUsage: number;
  encodings: Record<string, number>;
  /** Hash keys per resolution and cube ("h:f", "d:k", ...): where the keys (and their overhead) are. */
  hashesByCube: Record<string, number>;
  /** Keys and MEMORY USAGE bytes per key family (familyOf). */
  families: Record<string, { keys: number; bytes: number }>;
}

const BUCKET_KEY = /:\{[^}]*\}:([hdmn]|z[123][dm]):-?\d+:(.*)$/;

/**
 * The family of a key, for the per-cube breakdown: "section h:f" (sealed section), "delta d:k"
 * (counter hash), "section parts h:f" (list of section parts), "sealing h:i" (hash being sealed),
 * "sealing parts h:f" (list of section parts being sealed), "parts m" (parts and zparts sets, seal ids),
 * "dictionaries", "bucket indexes", or "other". Minute buckets (res n) are "delta n:<cube>"; a billing zone's edges
 * (res z<n>d, z<n>m) are families of their own, like a day's.
 */
export function familyOf(key: string): string {
  const bucket = BUCKET_KEY.exec(key);
  if (bucket) {
    const [, res, rest] = bucket as unknown as [string, string, string];
    const [first, second, third] = rest.split(':');
    if (first === 'S') return `section ${res}:${second}`;
    if (first === 'L') return `section parts ${res}:${second}`;
    if (first === 'z') return second === 'L' ? `sealing parts ${res}:${third}` : `sealing ${res}:${second}`;
    if (first === 'parts' || first === 'zparts' || first === 'zid') return `parts ${res}`;
    return `delta ${res}:${first}`;
  }
  if (key.includes(':dict:')) return 'dictionaries';
  if (key.includes(':idx:')) return 'bucket indexes';
  return 'other';
}

const COUNTER_KEY = /:\{[^}]*\}:([hdm]):-?\d+:([tkisf])(?::[^:]*)?$/;

export async function measureMemory(
  redis: Redis,
  prefix: string,
  baselineBytes: number,
): Promise<MemoryResult> {
  const used = await usedMemory(redis);
  let keys = 0;
  let memoryUsageBytes = 0;
  const families: Record<string, { keys: number; bytes: number }> = {};
  await scanPrefix(redis, prefix, async (page) => {
    keys += page.length;
    const pipeline = redis.pipeline();
    for (const key of page) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    ((await pipeline.exec()) ?? []).forEach(([err, reply], n) => {
      if (err) return;
      const bytes = Number(reply);
      memoryUsageBytes += bytes;
      const family = (families[familyOf(page[n]!)] ??= { keys: 0, bytes: 0 });
      family.keys++;
      family.bytes += bytes;
    });
  });

  let hashKeys = 0;
  let hashFields = 0;
  let dictionaryFields = 0;
  const counterFields = { h: 0, d: 0, m: 0 };
  const encodings: Record<string, number> = {};
  const hashesByCube: Record<string, number> = {};
  await scanPrefix(
    redis,
    prefix,
    async (page) => {
      const pipeline = redis.pipeline();
      for (const key of page) pipeline.hlen(key).object('ENCODING', key);
      const replies = (await pipeline.exec()) ?? [];
      page.forEach((key, n) => {
        const fields = Number(replies[2 * n]?.[1] ?? 0);
        const encoding = String(replies[2 * n + 1]?.[1] ?? 'gone');
        hashKeys++;
        hashFields += fields;
        encodings[encoding] = (encodings[encoding] ?? 0) + 1;
        const match = COUNTER_KEY.exec(key);
        if (match) {
          const resolution = match[1] as 'h' | 'd' | 'm';
          counterFields[resolution] += fields;
          const cube = `${resolution}:${match[2]}`;
          hashesByCube[cube] = (hashesByCube[cube] ?? 0) + 1;
        } else if (key.endsWith(':ix')) dictionaryFields += fields;
      });
    },
    'hash',
  );
  const dataSetBytes = used - baselineBytes;
  return {
    usedMemoryBytes: used,
    baselineBytes,
    dataSetBytes,
    keys,
    hashKeys,
    hashFields,
    counterFields,
    dictionaryFields,
    bytesPerCounter: dataSetBytes / Math.max(1, hashFields),
    memoryUsageBytes,
    bytesPerCounterByMemoryUsage: memoryUsageBytes / Math.max(1, hashFields),
    encodings,
    hashesByCube,
    families,
  };
}

/** Walking and removing the keys of one prefix (SCAN: never KEYS, never FLUSH*). */
import type { Redis } from 'ioredis';

/** MATCH pattern for every key starting with `<prefix>:` (glob characters of the prefix escaped). */
export const prefixPattern = (prefix: string): string => `${prefix.replace(/[*?[\]\\]/g, '\\$&')}:*`;

/** Calls `batch` with each SCAN page of keys under the prefix (optionally of one type). */
export async function scanPrefix(
  redis: Redis,
  prefix: string,
  batch: (keys: string[]) => Promise<void>,
  type?: string,
): Promise<void> {
  if (prefix.length === 0) throw new Error('scanPrefix: refusing an empty prefix');
  let cursor = '0';
  do {
    const [next, keys] = type
      ? await redis.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', 2000, 'TYPE', type)
      : await redis.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', 2000);
    cursor = next;
    if (keys.length > 0) await batch(keys);
  } while (cursor !== '0');
}

/** Removes every key of the prefix; returns how many. */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let removed = 0;
  await scanPrefix(redis, prefix, async (keys) => {
    removed += await redis.unlink(...keys);
  });
  return removed;
}

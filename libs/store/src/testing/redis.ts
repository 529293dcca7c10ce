/**
 * The tests' Redis through the store's own connection (connection.ts): a client of the shared test Redis or
 * of a cluster, a key listing over every master, and the clean-up of a test's key prefix. `target` is where
 * a test's Redis is: TestEnv.redis, testRedisTarget() or TestCluster.target of @va/testkit/support.
 */
import type { RedisOptions } from 'ioredis';
import {
  connectRedis,
  escapeGlob,
  scanKeys,
  unlinkKeys,
  type RedisClient,
  type RedisTarget,
} from '../connection';

/** A client of the shared test Redis or of a cluster, for tests that run against both. */
export function connectTarget(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  return connectRedis(target, { maxRetriesPerRequest: 5, ...options });
}

/**
 * Removes every key starting with prefix (SCAN + UNLINK, on every master of a cluster); returns how many
 * were removed. `redis`: the test Redis' URL, or a target (a cluster's: TestCluster.target).
 */
export async function deletePrefix(redis: string | RedisTarget, prefix: string): Promise<number> {
  if (prefix.length === 0) throw new Error('deletePrefix: refusing an empty prefix');
  const target = typeof redis === 'string' ? { redisUrl: redis, redisClusterNodes: [] } : redis;
  const client = connectRedis(target, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await client.connect();
  let removed = 0;
  try {
    // Key names may hold glob characters ({apiId} hash tags, '[' ...): escape the prefix for MATCH.
    for await (const keys of scanKeys(client, `${escapeGlob(prefix)}*`))
      removed += await unlinkKeys(client, keys);
  } finally {
    client.disconnect();
  }
  return removed;
}

/** KEYS for tests, on every master of a cluster too (SCAN MATCH `pattern`), sorted and without repeats. */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const out = new Set<string>();
  for await (const keys of scanKeys(redis, pattern)) for (const key of keys) out.add(key);
  return [...out].sort();
}

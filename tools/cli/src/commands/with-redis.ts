/**
 * Runs one CLI action with a Redis client from the environment (REDIS_URL or REDIS_CLUSTER_NODES,
 * REDIS_KEY_PREFIX) and closes it.
 */
import { loadConfig, type Config } from '@va/config';
import { connectRedis, describeTarget, type RedisClient } from '@va/store';

export async function withRedis<T>(action: (redis: RedisClient, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // One attempt, no reconnects: an operator command should fail fast and say why.
  const redis = connectRedis(
    config,
    { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null },
    { clusterRetryStrategy: () => null },
  );
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const reason = (lastError ?? (err as Error)).message;
    throw new Error(`cannot reach ${describeTarget(config)}: ${reason}`);
  }
  try {
    return await action(redis, config);
  } finally {
    redis.disconnect();
  }
}

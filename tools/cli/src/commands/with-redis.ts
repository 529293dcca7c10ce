/** Runs one CLI action with a Redis client from the environment (REDIS_URL, REDIS_KEY_PREFIX) and closes it. */
import { loadConfig, type Config } from '@va/config';
import { Redis } from 'ioredis';

export async function withRedis<T>(action: (redis: Redis, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // One attempt, no reconnects: an operator command should fail fast and say why.
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => (lastError = err));
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const reason = (lastError ?? (err as Error)).message;
    throw new Error(`cannot reach Redis at ${config.redisUrl}: ${reason}`);
  }
  try {
    return await action(redis, config);
  } finally {
    redis.disconnect();
  }
}

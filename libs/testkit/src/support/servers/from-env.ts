// Servers named by the environment (CI services, a developer's own stack): used as they are, never stopped.
import type { TestServers } from './types.js';

const SHARED_REDIS_PORT = '6379';

/** The shared Redis on 6379 belongs to other people: tests flush key prefixes, so refuse it unless told. */
function assertNotSharedRedis(redisUrl: string): void {
  const url = new URL(redisUrl);
  const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
  if (
    local &&
    (url.port || SHARED_REDIS_PORT) === SHARED_REDIS_PORT &&
    process.env.TEST_ALLOW_REDIS_6379 !== '1'
  ) {
    throw new Error(
      `REDIS_URL=${redisUrl} is the shared Redis on 6379; tests use their own. Unset REDIS_URL ` +
        '(the harness starts one) or set TEST_ALLOW_REDIS_6379=1 if that server really is yours.',
    );
  }
}

export function serversFromEnv(): TestServers | undefined {
  const kafkaBrokers = process.env.KAFKA_BROKERS;
  const redisUrl = process.env.REDIS_URL;
  if (!kafkaBrokers || !redisUrl) return undefined;
  assertNotSharedRedis(redisUrl);
  return {
    kafkaBrokers,
    redisUrl,
    origin: 'environment (KAFKA_BROKERS, REDIS_URL)',
    release: async () => {},
  };
}

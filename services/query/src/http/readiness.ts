/**
 * Readiness of the query service: Redis answers. Every query starts with a Redis round trip (credential,
 * generation, the API's owner) and reads everything else from there too; the rest (dictionaries, sections) is
 * loaded per API on its first query and kept, so there is nothing else to wait for at start. A connection that is
 * not ready fails at once; a ready one must answer a PING within `timeoutMs`: a Redis that hangs keeps its
 * connection open, and only the PING finds out.
 */
import type { RedisClient } from '@va/store';

export function redisReadiness(redis: RedisClient, timeoutMs = 1_000): () => Promise<boolean> {
  return async () => {
    if (redis.status !== 'ready') return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([redis.ping().then((pong) => pong === 'PONG'), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  };
}

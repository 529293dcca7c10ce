/**
 * The worker's start-up waits for Redis: the connect (the stack may start Redis at the same time) and
 * the first read after it (Redis may go away in between: a crash, a failover). Each is tried again
 * every 500 ms for 30 s, as a failed batch is retried, before the process gives up.
 */
import type { Logger } from '@va/runtime';

const ATTEMPTS = 60;
const RETRY_MS = 500;

/** `attempt()`'s result once it resolves; its last error after ATTEMPTS failures. */
export async function untilRedisAnswers<T>(
  what: string,
  attempt: () => Promise<T>,
  logger: Logger,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= ATTEMPTS) throw err;
      logger.warn(
        { err: err instanceof Error ? err.message : String(err), attempt: n },
        `waiting for redis: ${what}`,
      );
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/**
 * How a process running the ingest worker connects to Redis: services/ingest main.ts, and the CLI's
 * rebuild, which runs the same worker.
 * - No offline queue and no resend after a reconnect: a command must never reach a Redis other than the one
 *   the worker's caches came from (the worker drops them on 'close'). A command in flight when the connection
 *   closes fails instead (patches/ioredis+5.11.1.patch: ioredis 5.11 left it pending forever when the
 *   reconnect succeeded at once), and the worker retries the batch from the watermark Redis holds.
 * - A command unanswered for INGEST_REDIS_TIMEOUT_MS fails likewise: a node that hangs instead of dying closes
 *   no connection, and a commit waiting on it could wait for good (on a cluster the retry goes, once the slot
 *   map is refreshed, libs/store connection.ts, to the replica that took over).
 */
import type { RedisOptions } from 'ioredis';
import type { IngestSettings } from '@va/config';

export function workerRedisOptions(settings: Pick<IngestSettings, 'redisTimeoutMs'>) {
  return {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    commandTimeout: settings.redisTimeoutMs,
  } as const satisfies RedisOptions;
}

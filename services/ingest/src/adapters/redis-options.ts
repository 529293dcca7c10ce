/**
 * How a process running the ingest worker connects to Redis: services/ingest main.ts, and the CLI's
 * rebuild, which runs the same worker. No offline queue and no resend after a reconnect: a command must
 * never reach a Redis other than the one the worker's caches came from (the worker drops them on 'close').
 * A command in flight when the connection closes fails instead (patches/ioredis+5.11.1.patch: ioredis
 * 5.11 left it pending forever when the reconnect succeeded at once), and the worker retries the batch
 * from the watermark Redis holds.
 */
import type { RedisOptions } from 'ioredis';

export const WORKER_REDIS_OPTIONS = {
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 1,
  lazyConnect: true,
} as const satisfies RedisOptions;

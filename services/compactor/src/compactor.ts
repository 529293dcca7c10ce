/**
 * The compactor (docs/rollups.md): a BullMQ job scheduler ticks every compactionEveryMs; a
 * tick enqueues one `compact` job per known API (job id per API: a job still waiting or running
 * is never queued twice); a compact job runs libs/store compactApi up to the closed bound of
 * the tick. Every step of compactApi is one atomic script that moves `cmp`, so jobs may run
 * twice, concurrently, or be killed anywhere without losing or doubling a count.
 */
import { Queue, Worker, type Job } from 'bullmq';
import type { Config } from '@va/config';
import { closedBoundAt } from '@va/core';
import type { Logger } from '@va/runtime';
import { compactApi, connectRedis, globalKeys, readGeneration, sealApi, type RedisClient } from '@va/store';
import {
  COMPACT_JOB,
  COMPACTION_QUEUE,
  compactJobId,
  TICK_JOB,
  TICK_SCHEDULER_ID,
  type CompactJobData,
} from './jobs';
import { recordLag, type CompactorMetrics } from './metrics';
import type { CompactorSettings } from '@va/config';

/**
 * An open hour is sealed when its delta lists at least this many hashes and lists: a busy API's (the medium
 * tenant's hour holds ~200 after a burst); a small API's few hashes cost a reader less than a seal every minute.
 */
const OPEN_HOUR_MIN_HASHES = 32;

export interface CompactorDeps {
  config: Pick<
    Config,
    'redisUrl' | 'redisClusterNodes' | 'keyPrefix' | 'retention' | 'compactionGraceMs' | 'compactionEveryMs'
  >;
  logger: Logger;
  metrics: CompactorMetrics;
  settings: CompactorSettings;
  now: () => number;
}

export interface Compactor {
  start(): Promise<void>;
  /** Stops taking jobs, lets running ones stop at their next hour, closes every connection. */
  stop(): Promise<void>;
  healthy(): boolean;
}

export interface TickResult {
  apis: number;
  closedBound: number;
  generation: number;
}

/** APIs are listed with SSCAN: the set may be large, and SMEMBERS would block Redis. */
async function knownApis(redis: RedisClient, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, members] = await redis.sscan(globalKeys(prefix).apis, cursor, 'COUNT', 1000);
    out.push(...members);
    cursor = next;
  } while (cursor !== '0');
  return [...new Set(out)]; // SSCAN may return an element twice
}

export function createCompactor(deps: CompactorDeps): Compactor {
  const { config, logger, metrics, settings } = deps;
  const prefix = globalKeys(config.keyPrefix).bull;
  // BullMQ wants connections that retry forever (maxRetriesPerRequest: null); the Worker
  // duplicates its own for the blocking commands. Our scripts use a plain client.
  // On a cluster the prefix is a hash tag (keys.ts), so every key of the queue is in one slot.
  const queueConnection = connectRedis(config, { maxRetriesPerRequest: null });
  const workerConnection = connectRedis(config, { maxRetriesPerRequest: null });
  const store = connectRedis(config);
  for (const client of [queueConnection, workerConnection, store]) {
    client.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis'));
  }
  const queue = new Queue(COMPACTION_QUEUE, { connection: queueConnection, prefix });
  const stopping = new AbortController();
  let running = false;

  async function tick(): Promise<TickResult> {
    const closedBound = closedBoundAt(deps.now(), config.compactionGraceMs);
    const generation = await readGeneration(store, config.keyPrefix);
    const apis = await knownApis(store, config.keyPrefix);
    for (let n = 0; n < apis.length; n += 500) {
      await queue.addBulk(
        apis.slice(n, n + 500).map((apiId) => ({
          name: COMPACT_JOB,
          data: { apiId, generation, closedBound } satisfies CompactJobData,
          opts: { jobId: compactJobId(generation, apiId), removeOnComplete: true, removeOnFail: true },
        })),
      );
    }
    return { apis: apis.length, closedBound, generation };
  }

  async function compact(data: CompactJobData) {
    const { apiId, generation, closedBound } = data;
    // A job queued before a rebuild switched generations must not recreate keys of the old
    // generation, which the rebuild deletes (docs/rebuild.md).
    if ((await readGeneration(store, config.keyPrefix)) !== generation) return { skipped: 'old generation' };
    const space = { prefix: config.keyPrefix, generation };
    const seal = async (only?: 'h') => {
      const options = { now: deps.now(), retention: config.retention, signal: stopping.signal };
      // After compaction, the open hours whose delta a query ending now would read whole (store's open-hours.ts).
      const open = !only && settings.openHourSealMs > 0;
      const openHours = { minHashes: OPEN_HOUR_MIN_HASHES, everyMs: settings.openHourSealMs };
      const sealed = await sealApi(store, space, apiId, closedBound, {
        ...options,
        ...(only && { only }),
        ...(open && { openHours }),
      });
      metrics.bucketsSealed.inc(sealed.sealed);
      metrics.sectionBytesWritten.inc(sealed.bytes);
      metrics.hashesSealed.inc(sealed.hashes);
      return sealed;
    };
    // Closed hours are sealed before they are compacted: compaction then copies an hour's sections
    // to its day and month in a few commands (docs/store-v2.md "Compaction of sealed hours"),
    // where adding its hash fields one by one in Lua blocked Redis for ~50 ms per busy hour.
    const sealedFirst = settings.sealing ? await seal('h') : undefined;
    // In a catch-up the sealing above stops at SEAL_MAX_BUCKETS: compaction stops before the first
    // hour it left, which the next job seals first.
    const firstLeft = sealedFirst?.firstLeft ?? null;
    const result = await compactApi(store, space, apiId, {
      closedBound: firstLeft === null ? closedBound : Math.min(closedBound, firstLeft - 1),
      retention: config.retention,
      now: deps.now(),
      maxHours: settings.maxHoursPerJob,
      onHour: () => metrics.hoursCompacted.inc(),
      signal: stopping.signal,
    });
    const behind = closedBoundAt(deps.now(), config.compactionGraceMs) - (result.compactedThrough ?? -1);
    recordLag(metrics, behind);
    if (!settings.sealing || stopping.signal.aborted) return result;
    return { ...result, sealed: await seal() };
  }

  const worker = new Worker(
    COMPACTION_QUEUE,
    async (job: Job) => {
      if (job.name === TICK_JOB) return tick();
      if (job.name === COMPACT_JOB) return compact(job.data as CompactJobData);
      throw new Error(`unknown job ${job.name}`);
    },
    {
      connection: workerConnection,
      prefix,
      autorun: false,
      concurrency: settings.concurrency,
      lockDuration: settings.lockDurationMs,
      stalledInterval: settings.lockDurationMs,
      // A stalled job (its worker died) is just run again: compaction is idempotent.
      maxStalledCount: 1_000_000,
    },
  );
  worker.on('completed', (job: Job, result: unknown) => {
    metrics.jobs.inc({ name: job.name, result: 'completed' });
    logger.debug({ job: job.name, id: job.id, result }, 'job completed');
  });
  worker.on('failed', (job: Job | undefined, err: Error) => {
    metrics.jobs.inc({ name: job?.name ?? 'unknown', result: 'failed' });
    logger.warn({ job: job?.name, id: job?.id, err: err.message }, 'job failed (the next tick retries)');
  });
  worker.on('error', (err: Error) => logger.warn({ err: err.message }, 'worker error'));

  return {
    async start() {
      await queue.upsertJobScheduler(
        TICK_SCHEDULER_ID,
        { every: config.compactionEveryMs },
        { name: TICK_JOB, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
      );
      // A first tick now rather than one period after start.
      await queue.add(TICK_JOB, {}, { jobId: 'tick-start', removeOnComplete: true, removeOnFail: true });
      running = true;
      worker.run().catch((err: unknown) => {
        running = false;
        logger.error({ err }, 'worker stopped');
      });
    },

    async stop() {
      running = false;
      stopping.abort();
      await worker.close();
      await queue.close();
      for (const client of [queueConnection, workerConnection, store]) client.disconnect();
    },

    healthy() {
      return running && worker.isRunning() && store.status === 'ready';
    },
  };
}

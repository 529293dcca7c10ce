/**
 * The rebuild's consumer: the ingest worker itself (services/ingest, same exactly-once protocol),
 * run inside the CLI process with a FIXED generation g' and a consumer group of its own, so that it
 * reads both topics from where g' stands (wm + 1; from the earliest offsets when g' has none) while
 * the live workers keep writing g. It never produces to the DLQ (the live workers did that when the
 * records were new; a replay only counts what it leaves out) and never pauses the backfill topic.
 */
import { loadIngestSettings, type Config } from '@va/config';
import { createIngestMetrics, createIngestWorker, workerRedisOptions, type IngestWorker } from '@va/ingest';
import { createLogger, createRegistry } from '@va/runtime';
import { connectRedis } from '@va/store';
import type { ValidEvent } from '@va/ingest';

export interface RebuildConsumer {
  worker: IngestWorker;
  /** Records the replay refused (already dead-lettered when they were new), per reason. */
  refused: Map<string, number>;
  /** Set when the consumer crashed for good. */
  fatal(): Error | undefined;
  close(): Promise<void>;
}

export interface RebuildConsumerOptions {
  config: Config;
  group: string;
  generation: number;
  /** --since: events the copy of the older periods carried already. */
  skipEvent?: (event: ValidEvent, field: string, offset: number) => boolean;
}

export async function startRebuildConsumer(options: RebuildConsumerOptions): Promise<RebuildConsumer> {
  const { config } = options;
  // The CLI's own output goes to stdout: the worker logs only errors unless LOG_LEVEL says otherwise
  // (rebuild.ts loads the config with that default; the worker's warnings are routine here: CAS
  // retries while the rebuild compacts what it is writing).
  const logger = createLogger('rebuild', config.logLevel);
  const settings = loadIngestSettings();
  // As the ingest service connects: never send a command to a Redis the caches did not come from.
  const redis = connectRedis(config, workerRedisOptions(settings));
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis'));
  await redis.connect();
  const refused = new Map<string, number>();
  let fatal: Error | undefined;
  const worker = createIngestWorker({
    config: { ...config, consumerGroup: options.group },
    redis,
    logger,
    metrics: createIngestMetrics(createRegistry('rebuild')),
    settings: {
      ...settings,
      // Replay as fast as Redis takes it, both topics at once, and answer promptly near the end.
      backfillPauseLag: Number.MAX_SAFE_INTEGER,
      backfillResumeLag: Number.MAX_SAFE_INTEGER,
      minBytes: 1,
    },
    generation: options.generation,
    deadLetter: async (records) => {
      for (const r of records) refused.set(r.reason, (refused.get(r.reason) ?? 0) + 1);
    },
    ...(options.skipEvent && { skipEvent: options.skipEvent }),
    onFatal: (err) => (fatal = err),
  });
  await worker.start();
  return {
    worker,
    refused,
    fatal: () => fatal,
    async close() {
      await worker.stop();
      redis.disconnect();
    },
  };
}

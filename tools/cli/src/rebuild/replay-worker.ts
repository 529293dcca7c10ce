/**
 * The rebuild's replay process (consumer.ts starts it, one per rebuild): the ingest worker itself
 * (services/ingest, same exactly-once protocol, same tuning from INGEST_*) with a FIXED generation g'
 * and a consumer group of its own, so that it reads both topics from where g' stands (wm + 1; from
 * the earliest offsets when g' has none) while the live workers keep writing g. It never produces to
 * the DLQ (the live workers did that when the records were new; a replay only counts what it leaves
 * out) and never pauses the backfill topic.
 *
 * A process of its own, not a part of the CLI's: it is started with the ingest service's Node flags
 * and malloc settings (infra/lib/service-runtime.mjs), which only apply at a process's start, so that
 * the replay runs at the worker's speed (docs/rebuild.md "Replay at the worker's speed").
 *
 * Protocol (IPC, ReplayMessage in consumer.ts): 'started' once consuming, 'fatal' when the consumer
 * crashed for good, 'refused' (the counts per reason) right before a clean exit; the parent sends
 * 'stop'. When the parent dies (its IPC channel closes) this process exits at once: its progress is
 * the wm of g' in Redis, so `rebuild resume` continues exactly once, as after any crash.
 */
import { loadConfig, loadIngestSettings } from '@va/config';
import { createIngestMetrics, createIngestWorker, workerRedisOptions, type ValidEvent } from '@va/ingest';
import { createLogger, createRegistry } from '@va/runtime';
import { connectRedis, globalKeys, listApis, readCarries, type RedisClient } from '@va/store';
import type { ReplayMessage, ReplayWorkerOptions } from './consumer';
import { boundaryOf } from './plan';

const send = (message: ReplayMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(message, undefined, undefined, () => resolve());
  });

/** --since: an event before the boundary is left out when the copy carried it (docs/rebuild.md). */
async function carriedOver(
  redis: RedisClient,
  prefix: string,
  generation: number,
  boundary: number | null,
): Promise<((event: ValidEvent, field: string, offset: number) => boolean) | undefined> {
  if (boundary === null) return undefined;
  // The copy is complete and the carries never change again: load them once.
  const apis = await listApis(redis, globalKeys(prefix).apis);
  const carries = await readCarries(redis, { prefix, generation }, apis);
  const boundaryHour = boundaryOf(boundary).hour;
  return (event, field, offset) =>
    event.hour < boundaryHour && offset <= (carries.get(event.apiId)?.get(field) ?? -1);
}

/**
 * The parent died (SIGKILL, crash): stop consuming now; `rebuild resume` takes over from Redis. Three
 * ways to see it, because a parent killed while this process was still starting closes the IPC
 * channel before any listener exists (then no 'disconnect' ever comes, and an orphan would replay on
 * beside the resumed rebuild's own replay): the channel already gone, its 'disconnect', and the
 * parent process id changing (the orphan is adopted by init or a subreaper).
 */
function exitWithParent(): void {
  const parent = process.ppid;
  process.on('disconnect', () => process.exit(1));
  if (!process.connected) process.exit(1);
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, 500).unref();
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as ReplayWorkerOptions;
  // The CLI's own output is on stdout: the worker logs only errors unless LOG_LEVEL says otherwise
  // (its warnings are routine here: CAS retries while the rebuild compacts what it is writing).
  const config = loadConfig(process.env, { LOG_LEVEL: 'error' });
  const logger = createLogger('rebuild', config.logLevel);
  const settings = loadIngestSettings();
  // As the ingest service connects: never send a command to a Redis the caches did not come from.
  const redis = connectRedis(config, workerRedisOptions(settings));
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis'));
  await redis.connect();
  const skipEvent = await carriedOver(redis, config.keyPrefix, options.generation, options.boundary);
  const refused = new Map<string, number>();
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
    ...(skipEvent && { skipEvent }),
    onFatal: (err) => void send({ kind: 'fatal', message: err.message }).then(() => process.exit(1)),
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await worker.stop();
      redis.disconnect();
      await send({ kind: 'refused', counts: [...refused] });
      process.exit(0);
    })());
  process.on('message', (message: ReplayMessage) => {
    if (message.kind === 'stop') void stop();
  });
  // Signalled directly (the parent forwards nothing: it sends 'stop'): finish the batch in flight.
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  await worker.start();
  await send({ kind: 'started' });
}

exitWithParent();
main().catch(async (err: unknown) => {
  await send({ kind: 'fatal', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});

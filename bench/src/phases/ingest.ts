/**
 * Ingest throughput: one ingest worker (the service process) consumes the pre-produced topic from
 * the start; the rate is events from the first to the last applied one, read from the partition
 * watermarks in Redis (libs/store readWatermarks: every message through wm is applied or dead-lettered).
 * The worker's own CPU (process_cpu_seconds_total), Redis' (INFO cpu) and the broker's (/proc, when it
 * runs on this machine) show which process the 2-core machine spends the time in.
 */
import type { Redis } from 'ioredis';
import { readGeneration, readWatermarks } from '@va/store';
import { processCpuSeconds } from '@va/testkit';
import { log } from '../log';
import { scrape } from '../prometheus';
import {
  commandStats,
  redisCpuSeconds,
  resetStats,
  slowLog,
  type CommandStat,
  type SlowLog,
} from '../redis-info';
import type { Service } from '../services';
import { summarize, type Summary } from '../stats';

export interface IngestResult {
  events: number;
  /** From the first poll that saw applied events to the last applied event. */
  seconds: number;
  /**
   * Events applied after that first poll, per second of that span: the events of the first batch
   * seen were applied before the clock started, so they are left out. NaN (null in JSON) when the
   * span is under a second: too short to mean anything.
   */
  eventsPerSecond: number;
  /** Seconds from the worker's start to its first applied event (group join, first fetch). */
  startupSeconds: number;
  /** Events/s over each whole second of the run. */
  perSecond: Summary;
  deadLettered: number;
  workerCpuSeconds: number;
  redisCpuSeconds: number;
  /** The broker's CPU over the same span; null when it does not run on this machine (or is not ours to read). */
  kafkaCpuSeconds: number | null;
  /** Mean of va_ingest_batch_apply_seconds (decode + dead-letter + apply of one partition batch). */
  meanBatchSeconds: number;
  batches: number;
  commandStats: CommandStat[];
  slowLog: SlowLog;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface IngestTarget {
  redis: Redis;
  prefix: string;
  topic: string;
  /** Last offset per partition of the pre-produced topic. */
  ends: { partition: number; last: number }[];
  metricsUrl: string;
  /** The broker's process, when it runs on this machine. */
  kafkaPid: number | undefined;
  /** Starts the worker (the clock starts here). */
  start: () => Service;
  timeoutMs: number;
}

export async function measureIngest(
  target: IngestTarget,
): Promise<{ result: IngestResult; worker: Service }> {
  const { redis, ends, topic } = target;
  const events = ends.reduce((sum, p) => sum + p.last + 1, 0);
  const space = { prefix: target.prefix, generation: await readGeneration(redis, target.prefix) };
  const partitions = ends.map((p) => ({ topic, partition: p.partition }));
  await resetStats(redis);
  const redisCpu0 = await redisCpuSeconds(redis);
  const kafkaCpu0 = processCpuSeconds(target.kafkaPid);

  const startedAt = Date.now();
  const worker = target.start();
  await worker.waitHealthy(target.metricsUrl.replace(/\/metrics$/, '/health'), 120_000);
  // The worker's CPU so far went into loading its code and joining the group, not into ingest.
  const cpu0 = (await scrape(target.metricsUrl)).get('process_cpu_seconds_total') ?? 0;
  let firstAt: number | undefined;
  let appliedAtFirst = 0;
  let lastAt: number | undefined;
  const seconds: { t: number; applied: number }[] = [];
  let lastLog = startedAt;
  while (lastAt === undefined) {
    const wms = await readWatermarks(redis, space, partitions);
    const applied = wms.reduce<number>((sum, wm) => sum + (wm === null ? 0 : wm + 1), 0);
    const t = Date.now();
    if (applied > 0 && firstAt === undefined) {
      firstAt = t;
      appliedAtFirst = applied;
      seconds.push({ t, applied });
    }
    if (firstAt !== undefined && t - seconds[seconds.length - 1]!.t >= 1000) seconds.push({ t, applied });
    if (wms.every((wm, n) => (wm ?? -1) >= ends[n]!.last)) lastAt = t;
    if (t - lastLog >= 10_000) {
      log(`ingest: ${applied}/${events} applied`);
      lastLog = t;
    }
    if (t - startedAt > target.timeoutMs) throw new Error(`ingest timeout: ${applied}/${events} applied`);
    if (await Promise.race([worker.exited.then(() => true), sleep(100).then(() => false)])) {
      throw new Error(`ingest worker exited; see ${worker.logFile}`);
    }
  }
  const metrics = await scrape(target.metricsUrl);
  const redisCpu1 = await redisCpuSeconds(redis);
  const kafkaCpu = processCpuSeconds(target.kafkaPid) - kafkaCpu0;
  const elapsed = (lastAt - firstAt!) / 1000;
  const rates = seconds
    .slice(1)
    .map((s, n) => ((s.applied - seconds[n]!.applied) * 1000) / (s.t - seconds[n]!.t));
  const batches = metrics.get('va_ingest_batch_apply_seconds_count') ?? 0;
  return {
    worker,
    result: {
      events,
      seconds: elapsed,
      eventsPerSecond: elapsed >= 1 ? (events - appliedAtFirst) / elapsed : Number.NaN,
      startupSeconds: (firstAt! - startedAt) / 1000,
      perSecond: summarize(rates),
      deadLettered: metrics.get('va_ingest_events_dead_lettered_total') ?? 0,
      workerCpuSeconds: (metrics.get('process_cpu_seconds_total') ?? 0) - cpu0,
      redisCpuSeconds: redisCpu1 - redisCpu0,
      kafkaCpuSeconds: Number.isFinite(kafkaCpu) ? kafkaCpu : null,
      meanBatchSeconds: (metrics.get('va_ingest_batch_apply_seconds_sum') ?? 0) / Math.max(1, batches),
      batches,
      commandStats: await commandStats(redis),
      slowLog: await slowLog(redis),
    },
  };
}

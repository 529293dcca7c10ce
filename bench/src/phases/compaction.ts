/**
 * Compaction catch-up: starts the compactor (ticking every second instead of every 30 s, so that it
 * starts at once) and waits until `compaction status` would show no closed hour waiting for any API
 * (libs/store compactionStatus, the function behind the CLI command), then until it has sealed every
 * bucket that can be sealed (docs/store-v2.md: the compactor seals after it compacts, so the last
 * buckets are sealed some time after the last hour is compacted). Memory and query latencies are
 * measured on the compacted and sealed data set, as in production, where the compactor keeps up.
 */
import type { Redis } from 'ioredis';
import { closedBoundAt } from '@va/core';
import {
  compactionStatus,
  globalKeys,
  readCompactedThrough,
  readDirty,
  readGeneration,
  sealableBuckets,
} from '@va/store';
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

export interface CompactionResult {
  seconds: number;
  /** From the last hour compacted until no bucket was left to seal. */
  sealSeconds: number;
  apis: number;
  hoursCompacted: number;
  hoursPerSecond: number;
  compactorCpuSeconds: number;
  redisCpuSeconds: number;
  commandStats: CommandStat[];
  slowLog: SlowLog;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Closed hours with data that are not compacted yet, over every API of the prefix. */
export async function hoursWaiting(redis: Redis, prefix: string, graceMs: number): Promise<number> {
  const apis = await redis.smembers(globalKeys(prefix).apis);
  const space = { prefix, generation: await readGeneration(redis, prefix) };
  const status = await compactionStatus(redis, space, apis, closedBoundAt(Date.now(), graceMs));
  return status.reduce((sum, s) => sum + s.waitingHours, 0);
}

/** Buckets the compactor could seal now (dirty and sealable), over every API of the prefix. */
export async function bucketsToSeal(redis: Redis, prefix: string): Promise<number> {
  const apis = await redis.smembers(globalKeys(prefix).apis);
  const space = { prefix, generation: await readGeneration(redis, prefix) };
  let total = 0;
  for (const apiId of apis) {
    const dirty = await readDirty(redis, space, apiId);
    if (dirty.length === 0) continue;
    total += sealableBuckets(dirty, await readCompactedThrough(redis, space, apiId), Infinity).length;
  }
  return total;
}

export async function catchUpCompaction(target: {
  redis: Redis;
  prefix: string;
  graceMs: number;
  metricsUrl: string;
  start: () => Service;
  timeoutMs: number;
}): Promise<{ result: CompactionResult; compactor: Service }> {
  const { redis, prefix, graceMs } = target;
  await resetStats(redis);
  const redisCpu0 = await redisCpuSeconds(redis);
  const waitingAtStart = await hoursWaiting(redis, prefix, graceMs);
  log(`compaction: ${waitingAtStart} closed hours waiting`);
  const started = Date.now();
  const compactor = target.start();
  await compactor.waitHealthy(target.metricsUrl.replace(/\/metrics$/, '/health'), 120_000);
  let lastLog = Date.now();
  for (;;) {
    const waiting = await hoursWaiting(redis, prefix, graceMs);
    if (waiting === 0) break;
    if (Date.now() - lastLog >= 10_000) {
      log(`compaction: ${waiting} closed hours waiting`);
      lastLog = Date.now();
    }
    if (Date.now() - started > target.timeoutMs)
      throw new Error(`compaction timeout: ${waiting} hours waiting`);
    await sleep(250);
  }
  const seconds = (Date.now() - started) / 1000;
  for (;;) {
    const unsealed = await bucketsToSeal(redis, prefix);
    if (unsealed === 0) break;
    if (Date.now() - lastLog >= 10_000) {
      log(`compaction: ${unsealed} buckets to seal`);
      lastLog = Date.now();
    }
    if (Date.now() - started > target.timeoutMs)
      throw new Error(`compaction timeout: ${unsealed} buckets to seal`);
    await sleep(500);
  }
  const sealSeconds = (Date.now() - started) / 1000 - seconds;
  const metrics = await scrape(target.metricsUrl);
  const hoursCompacted = metrics.get('va_compactor_hours_compacted_total') ?? 0;
  return {
    compactor,
    result: {
      seconds,
      sealSeconds,
      apis: await redis.scard(globalKeys(prefix).apis),
      hoursCompacted,
      hoursPerSecond: hoursCompacted / Math.max(seconds, 0.001),
      compactorCpuSeconds: metrics.get('process_cpu_seconds_total') ?? 0,
      redisCpuSeconds: (await redisCpuSeconds(redis)) - redisCpu0,
      commandStats: await commandStats(redis),
      slowLog: await slowLog(redis),
    },
  };
}

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
import { apiKeys, compactionStatus, globalKeys, readGeneration, sealableBuckets } from '@va/store';
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
  /** Buckets sealed by the compactor over the whole phase (va_compactor_buckets_sealed_total). */
  bucketsSealed?: number;
  /** bucketsSealed over the whole phase's time (compaction and the sealing after it). */
  sealBucketsPerSecond?: number;
  compactorCpuSeconds: number;
  redisCpuSeconds: number;
  commandStats: CommandStat[];
  slowLog: SlowLog;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How often the catch-up is polled: each poll reads two keys per API, which for the tail's 5,000 APIs
 * every 250 ms was more Redis work than the compactor's own (INFO commandstats: ZCOUNT and GET).
 */
const pollMs = (apis: number): number => (apis > 500 ? 2_000 : 250);

/** Closed hours with data that are not compacted yet, over every API of the prefix. */
export async function hoursWaiting(redis: Redis, prefix: string, graceMs: number): Promise<number> {
  const apis = await redis.smembers(globalKeys(prefix).apis);
  const space = { prefix, generation: await readGeneration(redis, prefix) };
  const status = await compactionStatus(redis, space, apis, closedBoundAt(Date.now(), graceMs));
  return status.reduce((sum, s) => sum + s.waitingHours, 0);
}

/**
 * Buckets the compactor could seal now (dirty and sealable), over every API of the prefix: each API's
 * dirty set and compaction point read in pipelines of 500 APIs (thousands of APIs in the tail data set).
 */
export async function bucketsToSeal(redis: Redis, prefix: string): Promise<number> {
  const apis = await redis.smembers(globalKeys(prefix).apis);
  const space = { prefix, generation: await readGeneration(redis, prefix) };
  let total = 0;
  for (let from = 0; from < apis.length; from += 500) {
    const chunk = apis.slice(from, from + 500);
    const pipeline = redis.pipeline();
    for (const apiId of chunk) {
      const keys = apiKeys(space, apiId);
      pipeline.zrange(keys.dirty, 0, -1, 'WITHSCORES').get(keys.compactedThrough);
    }
    const replies = (await pipeline.exec()) ?? [];
    chunk.forEach((_, n) => {
      const [dirtyErr, raw] = replies[2 * n]!;
      const [cmpErr, cmp] = replies[2 * n + 1]!;
      if (dirtyErr || cmpErr) throw dirtyErr ?? cmpErr;
      const flat = raw as string[];
      if (flat.length === 0) return;
      const dirty = [];
      for (let i = 0; i < flat.length; i += 2) dirty.push({ member: flat[i]!, score: Number(flat[i + 1]) });
      total += sealableBuckets(dirty, cmp === null ? null : Number(cmp), Infinity).length;
    });
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
  const poll = pollMs(await redis.scard(globalKeys(prefix).apis));
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
    await sleep(poll);
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
    await sleep(Math.max(500, poll));
  }
  const sealSeconds = (Date.now() - started) / 1000 - seconds;
  const metrics = await scrape(target.metricsUrl);
  const hoursCompacted = metrics.get('va_compactor_hours_compacted_total') ?? 0;
  const bucketsSealed = metrics.get('va_compactor_buckets_sealed_total') ?? 0;
  return {
    compactor,
    result: {
      seconds,
      sealSeconds,
      apis: await redis.scard(globalKeys(prefix).apis),
      hoursCompacted,
      hoursPerSecond: hoursCompacted / Math.max(seconds, 0.001),
      bucketsSealed,
      sealBucketsPerSecond: bucketsSealed / Math.max(seconds + sealSeconds, 0.001),
      compactorCpuSeconds: metrics.get('process_cpu_seconds_total') ?? 0,
      redisCpuSeconds: (await redisCpuSeconds(redis)) - redisCpu0,
      commandStats: await commandStats(redis),
      slowLog: await slowLog(redis),
    },
  };
}

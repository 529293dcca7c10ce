// The compactor service in-process against a real Redis: the scheduler ticks, a tick fans out
// into one job per API (deduplicated by job id), jobs compact up to the closed bound.
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import { closedBoundAt, hourOf } from '@va/core';
import { createLogger } from '@va/runtime';
import { apiKeys, globalKeys, readCompactedThrough, type KeySpace, type RedisClient } from '@va/store';
import { testEnv, type TestEnv, waitFor } from '@va/testkit/support';
import { keysMatching, connectTarget, deletePrefix, dumpApiCounts } from '@va/store/testing';
import { createCompactor } from './compactor';
import { COMPACT_JOB, COMPACTION_QUEUE, compactJobId } from './jobs';
import { createCompactorMetrics } from './metrics';
import { DEFAULT_COMPACTOR_SETTINGS } from '@va/config';

let t: TestEnv;
let redis: RedisClient;

beforeAll(async () => {
  t = await testEnv('compactor service');
  redis = connectTarget(t.redis);
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

/** One counter in the t cube of hour h, the way ingest lays it out. */
async function writeHour(space: KeySpace, apiId: string, h: number, n: number): Promise<void> {
  const keys = apiKeys(space, apiId);
  await redis
    .multi()
    .hincrby(keys.cube('h', h, 't'), '0', n)
    .sadd(keys.parts('h', h), 't')
    .zadd(keys.bucketIndex('h'), h, h)
    .exec();
}

describe('compactor service', () => {
  it('compacts every known API up to the closed bound on its schedule', async () => {
    const now = Date.parse('2028-02-29T12:10:00Z');
    const config = { ...loadConfig(t.env), compactionEveryMs: 100, compactionGraceMs: 5 * 60_000 };
    await redis.set(globalKeys(t.keyPrefix).generation, '3');
    const space: KeySpace = { prefix: t.keyPrefix, generation: 3 };
    await redis.sadd(globalKeys(t.keyPrefix).apis, 'api_a', 'api:b');
    const first = hourOf(now) - 50;
    for (let h = first; h <= hourOf(now); h++) {
      await writeHour(space, 'api_a', h, 1);
      if (h % 3 === 0) await writeHour(space, 'api:b', h, 2);
    }
    const registry = new Registry();
    const metrics = createCompactorMetrics(registry);
    const compactor = createCompactor({
      config,
      logger: createLogger('compactor-test', 'warn'),
      metrics,
      settings: { ...DEFAULT_COMPACTOR_SETTINGS, maxHoursPerJob: 7, sealing: true },
      now: () => now,
    });
    await compactor.start();
    try {
      const bound = closedBoundAt(now, config.compactionGraceMs);
      expect(bound).toBe(hourOf(now) - 1); // 11:00-12:00 ended 10 minutes ago; 12:00 is open
      await waitFor(
        async () =>
          (await readCompactedThrough(redis, space, 'api_a')) === bound &&
          (await readCompactedThrough(redis, space, 'api:b')) === bound,
        { timeoutMs: 30_000, message: 'both APIs compacted' },
      );
      expect(compactor.healthy()).toBe(true);
      // Every hour up to the bound is in its day (sealed or not: cube-dump reads both), none after it.
      const days = await dumpApiCounts(redis, space, 'api_a', 'd');
      expect(days.sum.total[0]).toBe(bound - first + 1);
      const sealed = (await registry.getSingleMetric('va_compactor_buckets_sealed_total')!.get()).values[0]!;
      expect(sealed.value).toBeGreaterThan(0);
      const hours = (await registry.getSingleMetric('va_compactor_hours_compacted_total')!.get()).values[0]!
        .value;
      expect(hours).toBe(bound - first + 1 + Math.floor(bound / 3) - Math.ceil(first / 3) + 1);
      // BullMQ's keys stay under <prefix>:{bull}.
      const bullKeys = await keysMatching(redis, `${t.keyPrefix}:{bull}:${COMPACTION_QUEUE}:*`);
      expect(bullKeys.length).toBeGreaterThan(0);
    } finally {
      await compactor.stop();
    }
    expect(compactor.healthy()).toBe(false);
  });

  it('never queues a second job for an API whose job is still waiting', async () => {
    const connection = connectTarget(t.redis, { maxRetriesPerRequest: null });
    const queue = new Queue(`${COMPACTION_QUEUE}-dedup`, {
      connection,
      prefix: globalKeys(t.keyPrefix).bull,
    });
    try {
      const job = (closedBound: number) => ({
        name: COMPACT_JOB,
        data: { apiId: 'api:x', generation: 1, closedBound },
        opts: { jobId: compactJobId(1, 'api:x'), removeOnComplete: true, removeOnFail: true },
      });
      await queue.addBulk([job(10)]);
      await queue.addBulk([job(11), job(12)]);
      expect(await queue.getWaitingCount()).toBe(1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
  });
});

// KILL TEST (docs/api.md#retention): the compactor process is SIGKILLed at random moments, again and
// again, while events — late ones among them — keep arriving through Kafka and the real ingest
// worker. Afterwards every rollup must equal the events of the hours it holds, counted once.
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { closedBoundAt, DAY_MS, HOUR_MS, horizonsAt, inHourBucket, inRollups, hourOf } from '@va/core';
import { loadConfig } from '@va/config';
import { globalKeys, readCompactedThrough, readWatermark, type KeySpace } from '@va/store';
import {
  createTopics,
  deleteTopics,
  testEnv,
  type TestEnv,
  killAllChildren,
  startService,
  waitFor,
  type ServiceProcess,
} from '@va/testkit/support';
import { deletePrefix, dumpApiCounts } from '@va/store/testing';
import { COMPACTION_QUEUE } from './jobs';
import { comparable, expectedBuckets } from './testing/expected-rollups';
import { scaled } from '@va/testkit/time';

const KILLS = 12;
/** Twelve kill cycles, each a restart and a wait for progress: minutes on a slow machine. */
const KILL_BUDGET = { timeout: scaled(600_000) };
const PARTITIONS = 4;

let t: TestEnv;
let redis: Redis;
let producer: Producer;
let kafka: Kafka;

beforeAll(async () => {
  t = await testEnv('compactor kill');
  await createTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic], PARTITIONS);
  redis = new Redis(t.redisUrl);
  kafka = new Kafka({ clientId: 'compactor-kill', brokers: t.kafkaBrokers, logLevel: logLevel.WARN });
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
});

afterAll(async () => {
  killAllChildren();
  await producer?.disconnect();
  await deleteTopics(t.kafkaBrokers, [t.topic, t.dlqTopic, t.backfillTopic]);
  await deletePrefix(t.redisUrl, t.keyPrefix);
  redis?.disconnect();
});

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed from the seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const seed = Number(process.env.KILL_TEST_SEED ?? Date.now() % 1_000_000);
const rand = random(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;

let requestIds = 0;
/**
 * One event of an API: mostly late (hours to 20 days back: hours the compactor has already
 * passed or is about to), some in the last two hours, some 40-60 days back (past the hour
 * horizon: rollups only). Nothing between 30 and 40 days: no hour straddles the horizon
 * while the test runs.
 */
function event(apiId: string, now: number): VerificationEvent {
  const r = rand();
  const back = r < 0.7 ? rand() * 20 * DAY_MS : r < 0.9 ? rand() * 2 * HOUR_MS : (40 + rand() * 20) * DAY_MS;
  const identity =
    rand() < 0.4
      ? { id: `id_${Math.floor(rand() * 4)}`, externalId: `ext ${Math.floor(rand() * 4)}` }
      : undefined;
  const tags = rand() < 0.5 ? [pick(['a', 'b', 'c']), pick(['a', 'b', 'c'])] : undefined;
  return {
    requestId: `req_${requestIds++}`,
    time: Math.floor(now - back),
    workspaceId: 'ws_kill',
    apiId,
    keyId: `key_${Math.floor(rand() * 6)}`,
    outcome: pick(OUTCOMES),
    ...(identity && { identity }),
    ...(tags && { tags }),
  };
}

async function produce(events: readonly VerificationEvent[]): Promise<void> {
  await producer.send({
    topic: t.topic,
    acks: -1,
    messages: events.map((e) => ({ key: e.apiId, value: JSON.stringify(e) })),
  });
}

/** Every produced message is applied: the ingest watermark of each partition reached its end. */
async function ingestCaughtUp(space: KeySpace): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(t.topic);
    for (const { partition, high } of offsets) {
      const wm = await readWatermark(redis, space, t.topic, partition);
      if ((wm ?? -1) < Number(high) - 1) return false;
    }
    return true;
  } finally {
    await admin.disconnect();
  }
}

describe('compactor under SIGKILL', () => {
  it(`keeps every rollup exact through ${KILLS} kills while late events arrive`, KILL_BUDGET, async () => {
    const env = {
      ...t.env,
      COMPACTION_EVERY_MS: '200',
      COMPACTION_GRACE_MS: '0',
      COMPACTOR_LOCK_MS: '1500',
      // Short jobs: a new API's 20 days take many jobs, so kills land inside and between them.
      COMPACTOR_MAX_HOURS_PER_JOB: '25',
      COMPACTOR_SEALING: 'on',
    };
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const ingest = startService('ingest', env);
    await ingest.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`, 60_000);

    // Events keep coming: every round adds a new API (the compactor starts it from its first
    // hour) for a while and late events for the APIs already there.
    const events: VerificationEvent[] = [];
    const apis: string[] = [];
    let producing = true;
    const producing$ = (async () => {
      for (let round = 0; producing; round++) {
        if (round % 4 === 0 && apis.length < 30) apis.push(`api_${apis.length}`);
        const now = Date.now();
        const batch = Array.from({ length: 120 }, () => event(pick(apis), now));
        events.push(...batch);
        await produce(batch);
        await sleep(100);
      }
    })();

    // Only to report how many kills hit a running compaction job.
    const queue = new Queue(COMPACTION_QUEUE, { connection: redis, prefix: globalKeys(t.keyPrefix).bull });
    let killsWhileActive = 0;
    let compactor: ServiceProcess = startService('compactor', env);
    const healthUrl = `http://127.0.0.1:${t.compactorMetricsPort}/health`;
    for (let kill = 1; kill <= KILLS; kill++) {
      // Sometimes kill during start-up, mostly while it works.
      if (rand() < 0.7) await compactor.waitForHealth(healthUrl, 60_000);
      await sleep(100 + rand() * 1500);
      const { active } = await queue.getJobCounts('active');
      await compactor.kill('SIGKILL');
      if ((active ?? 0) > 0) killsWhileActive++;
      compactor = startService('compactor', env);
    }
    producing = false;
    await producing$;
    await queue.close();
    await compactor.waitForHealth(healthUrl, 60_000);

    await waitFor(() => ingestCaughtUp(space), {
      timeoutMs: 120_000,
      intervalMs: 250,
      message: 'ingest caught up',
    });
    const bound = closedBoundAt(Date.now(), 0);
    await waitFor(
      async () => {
        for (const apiId of apis)
          if (((await readCompactedThrough(redis, space, apiId)) ?? -1) < bound) return false;
        return true;
      },
      { timeoutMs: 120_000, intervalMs: 250, message: `every API compacted through hour ${bound}` },
    );

    // Nothing may move while we compare (an hour closing now would be compacted meanwhile).
    // A clean stop still exits 0.
    expect(await compactor.kill('SIGTERM')).toBe(0);
    await ingest.kill();

    // The oracle: hour buckets hold their own hour (within hour retention, or not compacted yet);
    // a rollup holds the hours <= cmp.
    const retention = loadConfig(env).retention;
    const horizons = horizonsAt(Date.now(), retention);
    let checkedDays = 0;
    let checkedMonths = 0;
    for (const apiId of apis) {
      const cmp = await readCompactedThrough(redis, space, apiId);
      expect(cmp).not.toBeNull();
      const mine = events.filter((e) => e.apiId === apiId);
      const inHours = (h: number) => inHourBucket(h, cmp, horizons);
      const inRollup = (h: number) => inRollups(h, cmp);
      for (const [r, holds] of [
        ['h', inHours],
        ['d', inRollup],
        ['m', inRollup],
      ] as const) {
        const want = expectedBuckets(mine, r, holds);
        const got = (await dumpApiCounts(redis, space, apiId, r)).perBucket;
        expect([apiId, r, [...got.keys()].sort()]).toEqual([apiId, r, [...want.keys()].sort()]);
        for (const [index, counts] of want) {
          expect([apiId, r, index, comparable(got.get(index))]).toEqual([
            apiId,
            r,
            index,
            comparable(counts),
          ]);
        }
        if (r === 'd') checkedDays += want.size;
        if (r === 'm') checkedMonths += want.size;
      }
    }
    expect(checkedDays).toBeGreaterThan(20);
    expect(checkedMonths).toBeGreaterThan(1);
    expect(events.length).toBeGreaterThan(1000);

    console.log(
      `kill test: seed ${seed}, ${KILLS} kills (${killsWhileActive} with a job running), ${events.length} events, ${apis.length} APIs, hour ${hourOf(Date.now())}`,
    );
  });
});

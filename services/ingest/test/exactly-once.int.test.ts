// Exactly once under failure (docs/api.md#the-event, docs/design.md "Write path: exactly once"): real worker
// processes are SIGKILLed at random moments while events are produced, Redis is SIGKILLed (AOF
// everysec loses up to a second), two workers share a group while one dies, and the Kafka broker is
// SIGKILLed under a consuming worker. At the end the stored counts equal the counts computed from the
// produced events, for every API, key, identity, tag set, key x tag set x identity, outcome and hour.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { hourOf } from '@va/core';
import { readWatermarks, watermarkKey, type KeySpace } from '@va/store';
import {
  createTopics,
  FAST_GROUP,
  deleteTopics,
  testEnv,
  type TestEnv,
  startService,
  waitFor,
  type ServiceProcess,
  startRedisServer,
  startPrivateKafka,
  loseAofTail,
} from '@va/testkit/support';
import { eventMessages, produceWithTail, createGenerator, seededRandom } from '@va/testkit';
import { topicEnds } from '@va/testkit';
import { expectedCounts, diffCounts, caughtUp, deletePrefix, dumpApiCounts } from '@va/store/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** The test's topics and clients; on the run's Kafka and Redis unless `servers` names others. */
async function setup(name: string, servers: { redisUrl?: string; brokers?: string[] } = {}) {
  const { redisUrl, brokers } = servers;
  const shared = await testEnv(name);
  const t = brokers
    ? { ...shared, kafkaBrokers: brokers, env: { ...shared.env, KAFKA_BROKERS: brokers.join(',') } }
    : shared;
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  // Calls of at most 300 writes: most batches stage chunks, so that kills also land between a
  // batch's call and its chunks (the next worker applies what is left when it reads its progress).
  const env = {
    ...t.env,
    ...FAST_GROUP,
    INGEST_MAX_WRITES_PER_CALL: '300',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
  const kafka = new Kafka({ clientId: name, brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanups.push(async () => {
    await producer.disconnect();
    await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
    await deletePrefix(redisUrl ?? t.redisUrl, t.keyPrefix);
  });
  return { t, env, kafka, producer, space: { prefix: t.keyPrefix, generation: 1 } as KeySpace };
}

/**
 * `count` events over the last `hours` hours (plus 2% late by days), 90% to the live topic and
 * 10% to the backfill topic, produced at `rate` per second.
 */
function traffic(seed: number, count: number) {
  const now = Date.now();
  const live = createGenerator({
    seed,
    apis: 12,
    keys: 3000,
    identities: 600,
    startMs: now - 3 * 3_600_000,
    spanMs: 3 * 3_600_000,
  });
  const random = seededRandom(seed + 1);
  const events: VerificationEvent[] = [];
  const backfill: VerificationEvent[] = [];
  for (let n = 0; n < count; n++) {
    const e = live.next();
    if (random() < 0.02) e.time = now - Math.floor(random() * 20 * 86_400_000); // late by up to 20 days
    if (random() < 0.1) backfill.push(e);
    else events.push(e);
  }
  return { events, backfill, all: [...events, ...backfill] };
}

/**
 * Produces the traffic at `rate`, 90% live and 10% backfill. With `enough`, the last 15% of each
 * topic trickles at 1/20 of the rate until enough() holds (produceWithTail).
 */
async function produceAll(
  producer: ReturnType<Kafka['producer']>,
  t: TestEnv,
  tr: Pick<ReturnType<typeof traffic>, 'events' | 'backfill'>,
  rate: number,
  enough: () => boolean = () => true,
): Promise<void> {
  const send = (
    events: VerificationEvent[],
    topic: string,
    share: number,
    chunk: number,
    tailChunk: number,
  ) =>
    produceWithTail(
      producer,
      [...eventMessages(events)],
      { topic, rate: rate * share, chunk },
      { until: enough, tailRate: (rate * share) / 20, tailChunk },
    );
  await Promise.all([
    send(tr.events, t.topic, 0.9, 500, 180),
    send(tr.backfill, t.backfillTopic, 0.1, 200, 20),
  ]);
}

/** Waits for every partition of both topics to be applied, then compares every cube and hour. */
async function expectExact(
  redis: Redis,
  kafka: Kafka,
  t: TestEnv,
  space: KeySpace,
  all: VerificationEvent[],
) {
  const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
  await waitFor(() => caughtUp(redis, space, ends), {
    timeoutMs: 120_000,
    intervalMs: 250,
    message: 'caught up',
  });
  // Every cube of every API (their sums over the hours), and each event in its own hour too: one read of
  // the API's hour buckets serves both.
  const problems: string[] = [];
  const perHour = new Map<string, number>();
  for (const e of all) {
    const key = `${e.apiId} ${hourOf(e.time)}`;
    perHour.set(key, (perHour.get(key) ?? 0) + 1);
  }
  const stored = new Map<string, number>();
  for (const [apiId, counts] of expectedCounts(all)) {
    const { perBucket, sum } = await dumpApiCounts(redis, space, apiId, 'h');
    problems.push(...diffCounts(apiId, counts, sum));
    for (const [h, c] of perBucket)
      stored.set(
        `${apiId} ${h}`,
        c.total.reduce((a, b) => a + b, 0),
      );
  }
  expect(problems).toEqual([]);
  expect(Object.fromEntries(stored)).toEqual(Object.fromEntries(perHour));
}

describe('exactly once under failure', () => {
  it('counts 200,000 events exactly while the worker is SIGKILLed at random moments', async () => {
    const { t, env: baseEnv, kafka, producer, space } = await setup('ingest kill worker');
    const env = { ...baseEnv, LOG_LEVEL: 'info' }; // the logs tell which kills hit a half-applied batch
    const logs: ServiceProcess[] = [];
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => redis.disconnect());
    const tr = traffic(101, 200_000);
    const random = seededRandom(7);
    let worker: ServiceProcess = startService('ingest', env);
    cleanups.push(() => worker.kill('SIGKILL'));

    let producing = true;
    // ~50 s of traffic: long enough for 10+ kill cycles (a restarted worker rejoins in ~3 s: FAST_GROUP);
    // on a slower machine its last 15% trickles until the tenth kill, so that every kill lands mid-stream.
    let kills = 0;
    const produced = produceAll(producer, t, tr, 4_000, () => kills >= 10).finally(() => (producing = false));
    const partitions = [t.topic, t.backfillTopic].flatMap((topic) =>
      [0, 1, 2, 3].map((partition) => ({ topic, partition })),
    );
    const applied = async () =>
      (await readWatermarks(redis, space, partitions)).reduce<number>(
        (sum, wm) => sum + (wm === null ? 0 : wm + 1),
        0,
      );
    // Kill mid-stream: once the new worker has applied something, at a random moment within the
    // next 1.5 s (inside a batch, between the apply and the watermark, while idle...). At least 10
    // times, and on while events are still produced.
    while (kills < 10 || producing) {
      const before = await applied();
      // 180 s: on a loaded CI machine a restarted worker was seen dropped from the group every ~8 s (the 6 s
      // session of FAST_GROUP) for 77 s before it applied again; its log then says why.
      const moved = await waitFor(
        async () => (await applied()) > before || (!producing && (await applied()) >= tr.all.length),
        {
          timeoutMs: 180_000,
          intervalMs: 50,
          message: 'worker progress',
        },
      ).catch((err: unknown) => {
        throw new Error(
          `${String(err)}; the worker's log ends:\n${worker.readLog().split('\n').slice(-30).join('\n')}`,
        );
      });
      if (moved && !producing && (await applied()) >= tr.all.length) break; // nothing left to interrupt
      await sleep(random() * 1_500);
      await worker.kill('SIGKILL');
      kills++;
      logs.push(worker);
      worker = startService('ingest', env);
    }
    await produced;
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    await expectExact(redis, kafka, t, space, tr.all);
    const replays = [...logs, worker].filter((w) => /skipped redelivered events/.test(w.readLog())).length;
    process.stderr.write(
      `[exactly-once] ${kills} worker SIGKILLs, ${tr.all.length} events; ${replays} restarts skipped ` +
        `events of a batch the killed worker had half applied\n`,
    );
    expect(kills).toBeGreaterThanOrEqual(10);
  });

  // A Redis restart that lost the AOF's last second: loseAofTail (@va/testkit/support) explains the cut.

  it('counts exactly across Redis SIGKILLs that lose the AOF tail (the last second)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-redis-kill-'));
    const server = await startRedisServer({ dir });
    // Stopped, then its data (~17 MB of AOF) removed: cleanups run in reverse order.
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => server.stop());
    const { t, env, kafka, producer, space } = await setup('ingest kill redis', { redisUrl: server.url });
    const redis = new Redis(server.url, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined); // reconnects across the crashes
    cleanups.push(async () => redis.disconnect());
    const tr = traffic(202, 60_000);
    const worker = startService('ingest', env);
    cleanups.push(() => worker.kill('SIGKILL'));
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

    const random = seededRandom(8);
    const produced = produceAll(producer, t, tr, 3_000); // ~20 s of traffic, the three crashes inside it
    const partitions = [t.topic, t.backfillTopic].flatMap((topic) =>
      [0, 1, 2, 3].map((partition) => ({ topic, partition })),
    );
    const applied = async () =>
      (await readWatermarks(redis, space, partitions)).reduce<number>(
        (sum, wm) => sum + (wm === null ? 0 : wm + 1),
        0,
      );
    let regressions = 0;
    for (let n = 0; n < 3; n++) {
      await sleep(2_000 + random() * 3_000);
      // The first crash must lose applied batches (a random cut may hold none): its cut reaches back over
      // the last watermark move, and nothing may move between the read of `before` and the SIGKILL, or the
      // cut takes back only that move. So the worker is paused (SIGSTOP) for that moment, after 100 ms for
      // the commands it already sent, and resumed (SIGCONT) as soon as Redis is dead, to meet it dead. It
      // is paused again for the restart until the loss has been read: a running worker re-applies the lost
      // batch within milliseconds of Redis coming back, before this test could see the watermark go back.
      // The second crash comes at random under the running
      // worker. During the third the worker is paused (a GC or VM pause) until Redis is back: it finds its
      // connection closed and reconnects at the first attempt, often with a commit in flight, which
      // ioredis 5.11 left pending forever (a stalled worker; patches/ioredis+5.11.1.patch, and
      // adapters/redis-options.int.test.ts for the exact case).
      const first = n === 0;
      const sleptThrough = n === 2;
      if (first) {
        worker.child.kill('SIGSTOP');
        await sleep(100);
      }
      const before = await applied();
      if (sleptThrough) worker.child.kill('SIGSTOP');
      await server.kill('SIGKILL');
      if (first) worker.child.kill('SIGCONT');
      loseAofTail(dir, 20_000 + Math.floor(random() * 200_000), first ? { losing: watermarkKey(space) } : {});
      await sleep(200 + random() * 800);
      if (first) worker.child.kill('SIGSTOP');
      await server.restart();
      if ((await applied()) < before) regressions++;
      if (first || sleptThrough) worker.child.kill('SIGCONT');
    }
    process.stderr.write(`[exactly-once] Redis lost applied batches on ${regressions} of 3 crashes\n`);
    expect(regressions).toBeGreaterThan(0); // the first crash's, at least
    await produced;
    await expectExact(redis, kafka, t, space, tr.all);
    // The worker survived every Redis crash.
    expect(worker.child.exitCode).toBeNull();
  });

  it('counts exactly across a Kafka broker SIGKILL and restart under a consuming worker', async () => {
    // A broker of this test's own: the run's Kafka serves every other file.
    const broker = await startPrivateKafka({ name: 'ingest-broker-kill' });
    cleanups.push(() => broker.destroy());
    const { t, env, kafka, producer, space } = await setup('ingest kill kafka', { brokers: broker.brokers });
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => redis.disconnect());
    const tr = traffic(404, 20_000);
    const worker = startService('ingest', env);
    cleanups.push(() => worker.kill('SIGKILL'));
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

    // Half of the events; the broker is SIGKILLed right after the last of them is sent and comes back
    // 2 s later (its restart recovers the logs of an unclean shutdown). The other half follows.
    const halves = [0, 1].map((n) => ({
      events: tr.events.filter((_, i) => i % 2 === n),
      backfill: tr.backfill.filter((_, i) => i % 2 === n),
    }));
    await produceAll(producer, t, halves[0]!, 5_000);
    await broker.stop({ kill: true });
    await sleep(2_000);
    await broker.start();
    await produceAll(producer, t, halves[1]!, 5_000);
    await expectExact(redis, kafka, t, space, tr.all);
    expect(worker.child.exitCode).toBeNull();
  });

  it('counts exactly with two workers in one group while they are SIGKILLed in turn', async () => {
    const { t, env, kafka, producer, space } = await setup('ingest two workers');
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => redis.disconnect());
    const tr = traffic(303, 60_000);
    // Two workers need two metrics ports.
    const envB = { ...env, INGEST_METRICS_PORT: String(t.compactorMetricsPort) };
    let a = startService('ingest', env);
    let b = startService('ingest', envB);
    cleanups.push(() => a.kill('SIGKILL'));
    cleanups.push(() => b.kill('SIGKILL'));
    await a.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    await b.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`);

    const produced = produceAll(producer, t, tr, 3_000); // ~20 s of traffic, all of it around the kills
    await sleep(3_000);
    await a.kill('SIGKILL'); // b takes over a's partitions after the session timeout (3 s)
    await sleep(5_000);
    a = startService('ingest', env); // rebalance again: partitions move back
    await sleep(5_000);
    await b.kill('SIGKILL');
    await sleep(2_000);
    b = startService('ingest', envB);
    await produced;
    await expectExact(redis, kafka, t, space, tr.all);
  });
});

// #39 item 2: with INGEST_WAIT_REPLICAS=1 the watermark never passes a batch before a WAIT after its writes
// succeeded. A batch applied on the API's master whose WAIT failed (ReplicaAckError) is found applied by the
// retry (off[api] on the master): the retry must still get the replica's acknowledgement before it moves the
// watermark, or a failover before the replica caught up loses the batch while the watermark says done.
//
// A private Redis Cluster (3 masters + 3 replicas): this file freezes a replica and crashes a master, which the
// `cluster` project's shared cluster must not see. One API, one partition, so the watermark and off[api] say
// exactly where the worker is.
//   1. The replica of the API's master frozen (SIGSTOP): the master applies the batch, the watermark stays.
//      Woken (SIGCONT): the watermark moves.
//   2. Frozen, a batch applied on the master, the watermark stays; the master crashes (SIGKILL) and the API's
//      slots have no master until the replica is woken OUTAGE_MS later; it takes over, the old master returns as
//      its replica: the watermark reaches the end and every cube equals the events (#39 item 2: the worker
//      recovers by itself, with no newer event to fetch).
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS } from '@va/core';
import {
  globalKeys,
  partitionField,
  readApiProgress,
  readWatermark,
  watermarkKey,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import { createGenerator, eventMessages, produceMessages, topicEnds } from '@va/testkit';
import { connectTarget, storeDiff } from '@va/store/testing';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  startService,
  startTestCluster,
  testEnv,
  waitFor,
  type TestCluster,
} from '@va/testkit/support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Long enough for several WAIT timeouts and retries of the worker (300 ms + 200 ms backoff each). */
const HELD_MS = 3_000;
/**
 * How long the API's slots have no master: longer than the worker's first attempt to read the watermark after its
 * failed commit can last (ioredis redirects a command while the slots move, at most INGEST_REDIS_TIMEOUT_MS below
 * for each of the attempt's reads), so that the attempt fails.
 */
const OUTAGE_MS = 15_000;

interface Setup {
  cluster: TestCluster;
  api: string;
  master: number;
  replica: number;
  events: VerificationEvent[];
  now: number;
  space: KeySpace;
  redis: RedisClient;
  /** Produces `count` more events; resolves with the partition's last offset. */
  produce(count: number): Promise<number>;
  wm(): Promise<number | null>;
  off(): Promise<number | null>;
  reached(what: string, read: () => Promise<number | null>, last: number): Promise<unknown>;
}

/** A private cluster, a worker with a replica wait, one API written once with every replica up. */
async function setUp(): Promise<Setup> {
  const t = await testEnv('replica wait');
  const cluster = await startTestCluster();
  cleanups.push(() => cluster.stop());
  const topics = [t.topic, t.backfillTopic, t.dlqTopic];
  await createTopics(t.kafkaBrokers, topics, 1);
  cleanups.push(() => deleteTopics(t.kafkaBrokers, topics));
  const now = Date.now();
  const generator = createGenerator({
    seed: 39,
    apis: 1,
    keys: 300,
    identities: 50,
    startMs: now - 3 * 3_600_000,
    spanMs: 3 * 3_600_000,
  });
  const api = generator.apiIds[0]!;
  // The API's master also holds the partition's watermark and `<p>:gen` (one key each for every partition, on one
  // master): when it dies, the worker's reads of its progress fail as long as its writes do.
  const master = await cluster.masterOf(`{${api}}`);
  const onMaster = async (prefix: string) =>
    (await cluster.masterOf(watermarkKey({ prefix, generation: 1 }))) === master &&
    (await cluster.masterOf(globalKeys(prefix).generation)) === master;
  let prefix = t.keyPrefix;
  for (let n = 1; !(await onMaster(prefix)); n++) prefix = `${t.keyPrefix}-${n}`;

  const worker = startService('ingest', {
    ...t.env,
    ...cluster.env,
    REDIS_KEY_PREFIX: prefix,
    ...FAST_GROUP,
    // The worker must recover by itself: a session that expires while Redis has no master for the slots makes
    // the group rebalance, and the resync of the new assignment would hide a worker that never retries alone.
    INGEST_SESSION_TIMEOUT_MS: '60000',
    INGEST_WAIT_REPLICAS: '1',
    INGEST_WAIT_TIMEOUT_MS: '300',
    INGEST_REDIS_TIMEOUT_MS: '3000',
    LOG_LEVEL: 'info',
  });
  cleanups.push(() => worker.kill('SIGKILL'));
  await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

  const events: VerificationEvent[] = [];
  const kafka = new Kafka({ clientId: 'replica-wait', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanups.push(() => producer.disconnect());
  async function produce(count: number): Promise<number> {
    const batch = Array.from({ length: count }, () => generator.next());
    events.push(...batch);
    await produceMessages(producer, eventMessages(batch), { topic: t.topic });
    return (await topicEnds(kafka, [t.topic]))[0]!.last;
  }

  const redis = connectTarget(cluster.target, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  cleanups.push(async () => redis.disconnect());
  const space: KeySpace = { prefix, generation: 1 };
  const field = partitionField(t.topic, 0);
  const wm = () => readWatermark(redis, space, t.topic, 0);
  const off = async () => (await readApiProgress(redis, space, field, [api])).off[0] ?? null;
  const reached = (what: string, read: () => Promise<number | null>, last: number) =>
    waitFor(async () => ((await read()) ?? -1) >= last, {
      timeoutMs: 90_000,
      intervalMs: 200,
      message: what,
    });

  // Warm up: the worker has joined and written the API once, with every replica up.
  await reached('the first batch counted', wm, await produce(500));
  const replica = await cluster.replicaOf(master);
  return { cluster, api, master, replica, events, now, space, redis, produce, wm, off, reached };
}

it('#39 item 2: a failed replica wait holds the watermark until the replica has the batch', async () => {
  const { cluster, replica, produce, wm, off, reached } = await setUp();
  // The replica frozen: the master holds the batch, the watermark does not pass it.
  const before = await wm();
  cluster.signal(replica, 'SIGSTOP');
  const last = await produce(2_000);
  await reached('the master applied the batch', off, last);
  await sleep(HELD_MS);
  expect(await wm(), 'the watermark while the replica is frozen').toBe(before);
  cluster.signal(replica, 'SIGCONT');
  await reached('the watermark passed the batch once the replica woke', wm, last);
});

// The last batch fails while the slots have no master, and no newer event follows: the worker must get back to
// the watermark by itself (a worker that waited for the next fetched batch to retry stalled here for good).
it('#39 item 2: a failover while the replica is frozen: the watermark waits, then every cube equals the events', async () => {
  const { cluster, api, master, replica, events, now, space, redis, produce, wm, off, reached } =
    await setUp();
  const held = await wm();
  cluster.signal(replica, 'SIGSTOP');
  const last = await produce(2_000);
  await reached('the master applied the batch', off, last);
  await sleep(HELD_MS);
  expect(await wm(), 'the watermark while the replica is frozen, before the failover').toBe(held);
  cluster.signal(master, 'SIGKILL');
  await sleep(OUTAGE_MS);
  cluster.signal(replica, 'SIGCONT');
  await waitFor(async () => (await cluster.masterOf(`{${api}}`).catch(() => undefined)) === replica, {
    timeoutMs: 60_000,
    intervalMs: 500,
    message: 'the replica took over',
  });
  // The old master returns as the new one's replica: WAIT 1 can be met again.
  await cluster.restartNode(master);
  await reached('the watermark passed the batch after the failover', wm, last);
  expect(await storeDiff(redis, space, events, { now, hourRetentionMs: 35 * DAY_MS })).toEqual([]);
});

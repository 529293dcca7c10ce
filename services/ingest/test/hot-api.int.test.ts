// A hot API spread over partitions (docs/deploy.md "A hot API"): its events are keyed by apiId/keyId,
// so they land on all 4 partitions and two workers of one consumer group write the API at the same
// time, each from its own partitions. The per-(API, partition) offsets (`off` fields
// "<topic>/<partition>") are what makes that exact: one worker is SIGKILLed mid-stream and started
// again (two rebalances), and at the end every cube of every API equals the counts computed from
// the produced events: nothing lost, nothing counted twice. The worker that is killed writes at
// most 40 writes per call (INGEST_MAX_WRITES_PER_CALL): nearly every batch stages chunks,
// so a kill may land between a batch's call and its chunks, which the next owner applies.
import { Redis } from 'ioredis';
import { AssignerProtocol, Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { partitionField, readApiProgress, type KeySpace } from '@va/store';
import {
  createTopics,
  deleteTopics,
  startService,
  testEnv,
  waitFor,
  type ServiceProcess,
  FAST_GROUP,
} from '@va/testkit/support';
import { createGenerator, eventMessages, produceMessages, seededRandom, topicEnds } from '@va/testkit';
import { verifyStored, expectedCounts, caughtUp, deletePrefix } from '@va/store/testing';
import { scaled } from '@va/testkit/time';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const HOT = 'api_0'; // the generator's APIs are Zipf-distributed: api_0 takes the largest share
const EVENTS = 60_000;

/** Live topic partitions each member of the group owns, by member id. */
async function assignments(kafka: Kafka, group: string, topic: string): Promise<number[][]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([group]);
    return groups[0]!.members.map((m) => {
      const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
      return [...(decoded?.assignment[topic] ?? [])].sort();
    });
  } finally {
    await admin.disconnect();
  }
}

it(
  'counts a hot API keyed by apiId+keyId over 4 partitions exactly, with 2 workers and one SIGKILLed',
  { timeout: scaled(300_000) },
  async () => {
    const t = await testEnv('ingest hot api');
    const topics = [t.topic, t.backfillTopic, t.dlqTopic];
    await createTopics(t.kafkaBrokers, topics, 4);
    const kafka = new Kafka({ clientId: 'hot-api', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => {
      await producer.disconnect();
      redis.disconnect();
      await deleteTopics(t.kafkaBrokers, topics);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    });
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };

    // Live traffic over the last 3 hours plus 2% late by up to 20 days; the hot API keyed by key.
    const now = Date.now();
    const generator = createGenerator({
      seed: 1515,
      apis: 6,
      keys: 2000,
      identities: 400,
      startMs: now - 3 * 3_600_000,
      spanMs: 3 * 3_600_000,
    });
    const random = seededRandom(1516);
    const events: VerificationEvent[] = Array.from({ length: EVENTS }, () => {
      const e = generator.next();
      if (random() < 0.02) e.time = now - Math.floor(random() * 20 * 86_400_000);
      return e;
    });
    const hot = events.filter((e) => e.apiId === HOT).length;
    expect(hot).toBeGreaterThan(EVENTS / 4);

    const envB = { ...t.env, ...FAST_GROUP, INGEST_METRICS_PORT: String(t.compactorMetricsPort) };
    const env = { ...t.env, ...FAST_GROUP, INGEST_MAX_WRITES_PER_CALL: '40' };
    let a: ServiceProcess = startService('ingest', env);
    const b: ServiceProcess = startService('ingest', envB);
    cleanups.push(() => a.kill('SIGKILL'));
    cleanups.push(() => b.kill('SIGKILL'));
    await a.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    await b.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`);
    // Both members own live partitions, so both write the hot API.
    await waitFor(
      async () => {
        const owned = await assignments(kafka, t.consumerGroup, t.topic);
        return owned.length === 2 && owned.every((p) => p.length === 2);
      },
      { timeoutMs: 60_000, intervalMs: 250, message: 'two members with two live partitions each' },
    );

    const produced = produceMessages(
      producer,
      eventMessages(events, (e) => (e.apiId === HOT ? 'apiId+keyId' : 'apiId')),
      { topic: t.topic, rate: 3_000, chunk: 500 },
    );
    // Kill one worker while both apply, at a random moment, once the hot API moved on every partition.
    const fields = [0, 1, 2, 3].map((partition) => partitionField(t.topic, partition));
    const hotOffsets = async () =>
      Promise.all(fields.map(async (f) => (await readApiProgress(redis, space, f, [HOT])).off[0]!));
    await waitFor(async () => (await hotOffsets()).every((off) => off >= 0), {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: `${HOT} applied from all 4 partitions`,
    });
    await sleep(random() * 2_000);
    await a.kill('SIGKILL'); // b takes a's partitions over after the session timeout
    await sleep(9_000);
    a = startService('ingest', env); // and hands them back
    await produced;

    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, space, ends), {
      timeoutMs: 120_000,
      intervalMs: 250,
      message: 'caught up',
    });
    expect(await verifyStored(redis, space, expectedCounts(events))).toEqual([]);
    // The hot API's progress is one offset per partition, each at that partition's end or before
    // it (the partition's last events may belong to other APIs).
    const offs = await hotOffsets();
    ends.forEach((end) => {
      expect(offs[end.partition]).toBeGreaterThan(end.last / 2);
      expect(offs[end.partition]).toBeLessThanOrEqual(end.last);
      expect(fields[end.partition]).toBe(partitionField(end.topic, end.partition));
    });
  },
);

// SIGTERM: the worker finishes the batch in flight, stores its progress, leaves the consumer group
// and exits 0; a new worker continues where it stopped, and every event is counted once.
import type { Redis } from 'ioredis';
import { Partitioners, type Kafka } from 'kafkajs';
import { readWatermarks } from '@va/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestEnv, startService, waitFor } from '@va/testkit/support';
import { ingestFixture, type IngestFixture } from './fixture';
import { eventMessages, produceMessages, createGenerator } from '@va/testkit';
import { topicEnds } from '@va/testkit';
import { verifyStored, expectedCounts, caughtUp } from '@va/store/testing';

let fixture: IngestFixture | undefined;
let t: TestEnv;
let redis: Redis;
let kafka: Kafka;

beforeAll(async () => {
  fixture = await ingestFixture('ingest graceful stop', 4);
  ({ t, redis, kafka } = fixture);
});

afterAll(async () => {
  await fixture?.close();
});

describe('graceful stop', () => {
  it('exits 0 on SIGTERM mid-stream, leaves the group, and loses or repeats nothing', async () => {
    const now = Date.now();
    const gen = createGenerator({
      seed: 5,
      apis: 8,
      keys: 800,
      identities: 100,
      startMs: now - 3_600_000,
      spanMs: 3_600_000,
    });
    const events = Array.from({ length: 40_000 }, () => gen.next());
    const env = { ...t.env, LOG_LEVEL: 'info' };
    const first = startService('ingest', env);
    await first.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const produced = produceMessages(producer, eventMessages(events), {
      topic: t.topic,
      rate: 10_000,
      chunk: 500,
    });

    const space = { prefix: t.keyPrefix, generation: 1 };
    const partitions = [0, 1, 2, 3].map((partition) => ({ topic: t.topic, partition }));
    const applied = async () =>
      (await readWatermarks(redis, space, partitions)).reduce<number>(
        (sum, wm) => sum + (wm === null ? 0 : wm + 1),
        0,
      );
    // Stop while batches are being applied.
    await waitFor(async () => (await applied()) > 5_000, { timeoutMs: 30_000 });
    const started = Date.now();
    expect(await first.kill('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(first.readLog()).toMatch(/"msg":"stopped"/);
    const admin = kafka.admin();
    await admin.connect();
    const { groups } = await admin.describeGroups([t.consumerGroup]);
    await admin.disconnect();
    expect(groups[0]?.members ?? []).toEqual([]); // left the group: no session timeout to wait for

    await produced;
    await producer.disconnect();
    const second = startService('ingest', t.env);
    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 60_000, message: 'caught up' });
    expect(await verifyStored(redis, space, expectedCounts(events))).toEqual([]);
    await second.kill('SIGTERM');
  });
});

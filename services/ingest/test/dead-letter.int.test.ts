// Malformed events go to the DLQ with their reason and original bytes; the valid events around
// them are all counted (a real worker process, real Kafka and Redis).
import type { Redis } from 'ioredis';
import { Partitioners, type Kafka, type KafkaMessage, type Message } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { registerApi } from '@va/store';
import { type TestEnv, startService, waitFor, type ServiceProcess } from '@va/testkit/support';
import { ingestFixture, type IngestFixture } from './fixture';
import { produceMessages, createGenerator } from '@va/testkit';
import { badEvents } from '../src/bad-events';
import { topicEnds } from '@va/testkit';
import { verifyStored, expectedCounts, caughtUp } from '@va/store/testing';

let fixture: IngestFixture | undefined;
let t: TestEnv;
let redis: Redis;
let kafka: Kafka;
let worker: ServiceProcess;

beforeAll(async () => {
  fixture = await ingestFixture('ingest dead letters', 2);
  ({ t, redis, kafka } = fixture);
  worker = startService('ingest', t.env);
  await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await fixture?.close();
});

async function readTopic(topic: string, count: number, timeoutMs = 60_000): Promise<KafkaMessage[]> {
  const consumer = kafka.consumer({ groupId: `${t.keyPrefix}-reader-${Date.now()}` });
  const messages: KafkaMessage[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      messages.push(message);
    },
  });
  try {
    await waitFor(() => messages.length >= count, { timeoutMs, message: `${count} messages on ${topic}` });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}

describe('dead-letter queue', () => {
  it('dead-letters every malformed event with its reason, counts every valid one', async () => {
    const now = Date.now();
    await registerApi(redis, t.keyPrefix, 'api_bad', 'ws_bad');
    const gen = createGenerator({
      seed: 7,
      apis: 3,
      keys: 30,
      identities: 10,
      startMs: now - 3_600_000,
      spanMs: 3_600_000,
    });
    const valid: VerificationEvent[] = [];
    const bad = badEvents(now, 'api_bad');
    const messages: Message[] = [];
    // Valid events before, between and after the bad ones, on the same partition (key api_bad) and others.
    const pushValid = (n: number) => {
      for (let k = 0; k < n; k++) {
        const e = { ...gen.next() };
        if (k % 2 === 0) {
          e.apiId = 'api_bad';
          e.workspaceId = 'ws_bad';
        }
        valid.push(e);
        messages.push({ key: e.apiId, value: JSON.stringify(e) });
      }
    };
    pushValid(50);
    for (const b of bad) {
      messages.push({ key: 'api_bad', value: b.value, headers: { 'x-test': b.name } });
      pushValid(3);
    }
    pushValid(50);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await produceMessages(producer, messages, { topic: t.topic, chunk: 7, inFlight: 1 });
    await producer.disconnect();

    const dlq = await readTopic(t.dlqTopic, bad.length);
    expect(dlq).toHaveLength(bad.length);
    const byName = new Map(dlq.map((m) => [String(m.headers?.['x-test']), m]));
    for (const b of bad) {
      const m = byName.get(b.name);
      expect(m, b.name).toBeDefined();
      expect(String(m!.headers!['x-dlq-reason']), b.name).toBe(b.reason);
      expect(String(m!.headers!['x-dlq-detail']).length, b.name).toBeGreaterThan(0);
      expect(String(m!.headers!['x-original-topic'])).toBe(t.topic);
      expect(Number(m!.headers!['x-original-partition'])).toBeGreaterThanOrEqual(0);
      expect(Number(m!.headers!['x-original-offset'])).toBeGreaterThanOrEqual(0);
      expect(m!.key?.toString()).toBe('api_bad');
      if (b.value === null || b.value.length === 0)
        expect(m!.value === null || m!.value.length === 0).toBe(true);
      else expect(Buffer.compare(m!.value!, b.value), b.name).toBe(0);
    }

    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, { prefix: t.keyPrefix, generation: 1 }, ends), {
      timeoutMs: 60_000,
      message: 'worker caught up',
    });
    const problems = await verifyStored(redis, { prefix: t.keyPrefix, generation: 1 }, expectedCounts(valid));
    expect(problems).toEqual([]);

    const metrics = await (await fetch(`http://127.0.0.1:${t.ingestMetricsPort}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`va_ingest_events_applied_total\\{[^}]*\\} ${valid.length}\\b`));
    expect(metrics).toMatch(/va_ingest_events_dead_lettered_total\{reason="schema"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/va_ingest_events_dead_lettered_total\{reason="invalid_text"[^}]*\} [1-9]/);
  });
});

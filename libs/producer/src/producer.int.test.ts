// @va/producer against a real broker of the test's own: 100,000 events with the broker killed
// (SIGKILL) or stopped (SIGTERM) in the middle of the stream and started again. Afterwards the
// topic holds every event exactly once (count and set of requestIds), the buffer never held more
// than its bound, and the metrics add up.
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTopics, startPrivateKafka, waitFor, type PrivateKafka } from '@va/testkit/support';
import { createProducer } from './producer';

const EVENTS = 100_000;
const MAX_BUFFERED = 10_000;

let kafka: PrivateKafka;
beforeAll(async () => {
  kafka = await startPrivateKafka({ name: 'producer-restart' });
});
afterAll(async () => {
  await kafka?.destroy();
});

const event = (n: number) => ({
  requestId: `r${n}`,
  time: 1_700_000_000_000 + n,
  workspaceId: 'ws_1',
  apiId: `api_${n % 7}`,
  keyId: `key_${n % 101}`,
  outcome: 'VALID' as const,
  tags: [`t${n % 3}`],
});

/** Every message of the topic: how many and the set of requestIds (with their keys checked). */
async function readBack(topic: string): Promise<{ count: number; requestIds: Set<string> }> {
  const client = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING });
  const admin = client.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const total = offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
  const requestIds = new Set<string>();
  let count = 0;
  let wrongKeys = 0;
  const consumer = client.consumer({ groupId: `${topic}-reader`, maxBytes: 8 * 1024 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        const e = JSON.parse(String(m.value)) as { requestId: string; apiId: string };
        if (String(m.key) !== e.apiId) wrongKeys++;
        requestIds.add(e.requestId);
        count++;
      }
      await Promise.resolve();
    },
  });
  await waitFor(() => count >= total, { timeoutMs: 120_000, message: `${total} messages read back` });
  await consumer.disconnect();
  expect(wrongKeys, 'messages whose key is not their apiId').toBe(0);
  return { count, requestIds };
}

describe.each([
  { how: 'killed (SIGKILL)', kill: true },
  { how: 'stopped (SIGTERM)', kill: false },
])('producer with the broker $how and restarted mid-stream', ({ kill }) => {
  const topic = `producer-restart-${kill ? 'kill' : 'term'}`;

  it(`delivers each of ${EVENTS} events exactly once`, async () => {
    await createTopics(kafka.brokers, [topic], 4);
    const registry = new Registry();
    const producer = createProducer({
      topic,
      brokers: kafka.brokers,
      clientId: 'producer-restart-test',
      maxBufferedEvents: MAX_BUFFERED,
      batchSize: 2000,
      registry,
    });
    await producer.connect();
    let maxBuffered = 0;
    const send = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        await producer.send(event(n));
        maxBuffered = Math.max(maxBuffered, producer.buffered.events);
      }
    };

    // First half; once part of it is acknowledged, the broker goes down while the rest is
    // buffered or in flight, and the second half is sent while it is down and restarting.
    await send(0, EVENTS / 2);
    await waitFor(() => producer.sent >= EVENTS / 5, { timeoutMs: 120_000, message: 'a fifth acknowledged' });
    await kafka.stop({ kill });
    const sentWhileDown = producer.sent;
    const restarted = kafka.start();
    try {
      await send(EVENTS / 2, EVENTS);
    } finally {
      await restarted;
    }
    await producer.close();

    expect(sentWhileDown).toBeLessThan(EVENTS);
    expect(producer.sent).toBe(EVENTS);
    expect(producer.failed).toBe(0);
    expect(maxBuffered).toBeLessThanOrEqual(MAX_BUFFERED);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string) => metrics.find((m) => m.name === name)?.values[0]?.value;
    expect(value('va_producer_events_sent_total')).toBe(EVENTS);
    expect(value('va_producer_buffered_events')).toBe(0);

    const { count, requestIds } = await readBack(topic);
    expect(count).toBe(EVENTS);
    expect(requestIds.size).toBe(EVENTS);
    for (let n = 0; n < EVENTS; n++) if (!requestIds.has(`r${n}`)) expect.fail(`r${n} missing`);
  });
});

describe('a topic that does not exist', () => {
  it('fails connect() and send() at once instead of retrying forever', async () => {
    const producer = createProducer({
      topic: `missing-${Date.now()}`,
      brokers: kafka.brokers,
      logLevel: logLevel.NOTHING,
      registry: new Registry(),
    });
    await expect(producer.connect()).rejects.toThrow(/does not exist/);
    await expect(producer.close()).resolves.toBeUndefined();
  });
});

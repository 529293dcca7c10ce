// The batching, backpressure, flush and failure logic against a fake sender (the Kafka edge is
// tested against a real broker in producer.int.test.ts).
import { Registry } from 'prom-client';
import type { RecordMetadata, TopicMessages } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createProducer, type DeliveredBatch } from './producer';

const event = (n: number) => ({
  requestId: `r${n}`,
  time: 1_700_000_000_000,
  workspaceId: 'ws_1',
  apiId: `api_${n % 3}`,
  keyId: `key_${n}`,
  outcome: 'VALID' as const,
});

/** A sender that holds every batch until the test releases it. */
function heldSender() {
  const batches: TopicMessages[][] = [];
  const pending: { resolve: (r: RecordMetadata[]) => void; reject: (e: unknown) => void }[] = [];
  let arrived: (() => void) | undefined;
  return {
    batches,
    send: (topicMessages: TopicMessages[]) =>
      new Promise<RecordMetadata[]>((resolve, reject) => {
        batches.push(topicMessages);
        pending.push({ resolve, reject });
        arrived?.();
      }),
    async nextBatch(): Promise<void> {
      if (pending.length > 0) return;
      await new Promise<void>((resolve) => (arrived = resolve));
    },
    ack: () => pending.shift()!.resolve([]),
    fail: (e: unknown) => pending.shift()!.reject(e),
  };
}

const count = (batch: TopicMessages[]) => batch.reduce((s, t) => s + t.messages.length, 0);

describe('VerificationProducer (fake sender)', () => {
  it('batches by size, keys by apiId, and holds a partial batch for its linger until flush()', async () => {
    const sender = heldSender();
    const registry = new Registry();
    const producer = createProducer({
      topic: 'events',
      sender: sender.send,
      batchSize: 3,
      lingerMs: 3_600_000,
      registry,
    });
    for (let n = 0; n < 4; n++) await producer.send(event(n));
    await sender.nextBatch();
    expect(sender.batches).toHaveLength(1);
    expect(sender.batches[0]![0]!.messages.map((m) => m.key)).toEqual(['api_0', 'api_1', 'api_2']);
    expect(JSON.parse(String(sender.batches[0]![0]!.messages[0]!.value))).toEqual(event(0));
    sender.ack();
    const flushed = producer.flush();
    await sender.nextBatch();
    expect(sender.batches.map(count)).toEqual([3, 1]);
    sender.ack();
    await flushed;
    expect(producer.sent).toBe(4);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string) => metrics.find((m) => m.name === name)?.values[0]?.value;
    expect(value('va_producer_events_sent_total')).toBe(4);
    expect(value('va_producer_buffered_events')).toBe(0);
    await producer.close();
  });

  it('send() waits while the buffer is full (in-flight events count) and resumes on acknowledgement', async () => {
    const sender = heldSender();
    const producer = createProducer({
      topic: 'events',
      sender: sender.send,
      batchSize: 2,
      lingerMs: 3_600_000,
      maxBufferedEvents: 2,
      registry: new Registry(),
    });
    await producer.send(event(0));
    await producer.send(event(1));
    let third = false;
    const sending = producer.send(event(2)).then(() => (third = true));
    await sender.nextBatch();
    expect(producer.buffered).toEqual({ events: 2, bytes: expect.any(Number), blocked: 1 });
    expect(third).toBe(false);
    sender.ack();
    await sending;
    expect(third).toBe(true);
    const closed = producer.close();
    await sender.nextBatch();
    sender.ack();
    await closed;
    expect(sender.batches.map(count)).toEqual([2, 1]);
  });

  it('reports each delivered batch in order with the refs of its messages', async () => {
    const seen: DeliveredBatch<number>[] = [];
    const producer = createProducer<number>({
      topic: 'events',
      sender: (tm) => Promise.resolve(tm.map((t) => ({ topicName: t.topic, partition: 0, errorCode: 0 }))),
      batchSize: 2,
      lingerMs: 3_600_000,
      registry: new Registry(),
      onDelivered: (batch) => {
        seen.push(batch);
      },
    });
    for (let n = 1; n <= 5; n++)
      await producer.sendRaw({ key: 'k', value: `v${n}`, ref: n, topic: n % 2 ? 'a' : 'b' });
    await producer.close();
    expect(seen.flatMap((b) => b.refs)).toEqual([1, 2, 3, 4, 5]);
    expect(seen[0]!.records.map((r) => r.topicName)).toEqual(['a', 'b']);
  });

  it('a failed batch fails flush(), the events behind it and later sends', async () => {
    const sender = heldSender();
    const registry = new Registry();
    const producer = createProducer({
      topic: 'events',
      sender: sender.send,
      batchSize: 1,
      lingerMs: 0,
      maxBufferedEvents: 1,
      registry,
    });
    await producer.send(event(0));
    const blocked = producer.send(event(1));
    const flushed = producer.flush();
    await sender.nextBatch();
    sender.fail(new Error('broker said no'));
    await expect(flushed).rejects.toThrow('broker said no');
    await expect(blocked).rejects.toThrow('broker said no');
    await expect(producer.send(event(2))).rejects.toThrow('broker said no');
    expect(producer.failed).toBe(2);
    await expect(producer.close()).rejects.toThrow('broker said no');
  });

  it('refuses an invalid event before buffering it', async () => {
    const producer = createProducer({
      topic: 'events',
      sender: () => Promise.resolve([]),
      registry: new Registry(),
    });
    await expect(producer.send({ ...event(0), keyId: '' })).rejects.toThrow(/keyId/);
    expect(producer.buffered.events).toBe(0);
    await producer.close();
  });
});

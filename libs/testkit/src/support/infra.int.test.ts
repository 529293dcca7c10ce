// Tests the test harness itself: the provided Kafka carries a message end to end, the provided Redis answers,
// and a dedicated redis-server keeps an fsynced write across SIGKILL and restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopics, deleteTopics, testEnv } from './context.js';
import { startRedisServer } from './redis-server.js';
import { waitFor } from './wait.js';

describe('test harness', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('provides a Kafka that carries a message from a producer to a consumer group', async () => {
    const env = await testEnv('kafka smoke');
    await createTopics(env.kafkaBrokers, [env.topic]);
    cleanups.push(() => deleteTopics(env.kafkaBrokers, [env.topic]));
    const kafka = new Kafka({ clientId: 'harness-test', brokers: env.kafkaBrokers, logLevel: logLevel.WARN });

    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: env.topic, messages: [{ key: 'api_1', value: '{"hello":"kafka"}' }] });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: env.consumerGroup });
    await consumer.connect();
    await consumer.subscribe({ topic: env.topic, fromBeginning: true });
    const received: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void received.push(String(message.value)) });
    try {
      await waitFor(() => received.length === 1, { timeoutMs: 60_000, message: 'one message consumed' });
    } finally {
      await consumer.disconnect();
    }
    expect(received).toEqual(['{"hello":"kafka"}']);
  });

  it('creates topics whose every partition is served by its leader when createTopics returns, and leaves existing ones', async () => {
    const env = await testEnv('topics');
    const topics = [env.topic, env.dlqTopic, env.backfillTopic];
    await createTopics(env.kafkaBrokers, topics, 3);
    cleanups.push(() => deleteTopics(env.kafkaBrokers, topics));
    const admin = new Kafka({
      clientId: 'harness-test',
      brokers: env.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      // No retry here: ListOffsets goes to each partition's leader, which must already be in place.
      for (const topic of topics) {
        const offsets = await admin.fetchTopicOffsets(topic);
        expect(offsets.map((o) => [o.partition, o.high]).sort(([a], [b]) => Number(a) - Number(b))).toEqual([
          [0, '0'],
          [1, '0'],
          [2, '0'],
        ]);
      }
      // Again on the same topics (another partition count asked): nothing changes, nothing throws.
      await createTopics(env.kafkaBrokers, topics, 5);
      const metadata = await admin.fetchTopicMetadata({ topics });
      expect(metadata.topics.map((t) => t.partitions.length)).toEqual([3, 3, 3]);
    } finally {
      await admin.disconnect();
    }
  });

  it('provides a Redis (its key prefix is cleaned by @va/store/testing deletePrefix: redis.int.test.ts there)', async () => {
    const env = await testEnv('redis smoke');
    const redis = new Redis(env.redisUrl);
    try {
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('gives each testEnv its own names, ports and child environment', async () => {
    const [a, b] = [await testEnv('same'), await testEnv('same')];
    expect(a.topic).not.toBe(b.topic);
    expect(a.keyPrefix).toMatch(/^t-same-[0-9a-f]{8}$/);
    expect(a.env).toMatchObject({
      KAFKA_TOPIC: a.topic,
      KAFKA_DLQ_TOPIC: a.dlqTopic,
      KAFKA_BACKFILL_TOPIC: a.backfillTopic,
      KAFKA_GROUP: a.consumerGroup,
      REDIS_KEY_PREFIX: a.keyPrefix,
      PORT: String(a.port),
    });
    expect(new Set([a.port, a.ingestMetricsPort, a.compactorMetricsPort]).size).toBe(3);
  });

  it('runs a dedicated redis-server whose fsynced writes survive SIGKILL and restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-redis-'));
    const server = await startRedisServer({ dir, appendonly: true });
    cleanups.push(async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const client = () => new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    const before = client();
    await before.set('survivor', 'yes');
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // appendfsync everysec
    before.disconnect();
    const firstPid = server.pid;

    await server.kill('SIGKILL');
    await server.restart();

    expect(server.pid).not.toBe(firstPid);
    const after = client();
    try {
      expect(await after.get('survivor')).toBe('yes');
    } finally {
      after.disconnect();
    }
  });
});

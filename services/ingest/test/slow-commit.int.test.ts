// A batch whose commit outlasts the consumer-group session (Redis far away, a backlog to work off):
// the worker stays in the group while the batch runs, so it joins once and applies everything,
// instead of being dropped, rejoining and refetching the same batch over and over.
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { readWatermarks, type KeySpace } from '@va/store';
import { caughtUp, deletePrefix } from '@va/store/testing';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  startRedisProxy,
  startService,
  testEnv,
  waitFor,
} from '@va/testkit/support';
import { createGenerator, eventMessages, topicEnds } from '@va/testkit';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

describe('a batch longer than the session', () => {
  it('applies a backlog through a slow Redis without being dropped from the group', async () => {
    const t = await testEnv('ingest slow commit');
    await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 1);
    // Every Redis reply to the worker waits 400 ms: with calls of at most 100 writes, one batch of the
    // backlog makes dozens of round trips, many times the 2 s session.
    const proxy = await startRedisProxy(t.redisUrl, 400);
    const kafka = new Kafka({ clientId: 'slow-commit', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => {
      await producer.disconnect();
      redis.disconnect();
      await proxy.close();
      await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    });

    const now = Date.now();
    const gen = createGenerator({
      seed: 5,
      apis: 8,
      keys: 2000,
      identities: 400,
      startMs: now - 3_600_000,
      spanMs: 3_600_000,
    });
    const events = Array.from({ length: 20_000 }, () => gen.next());
    const messages = [...eventMessages(events)];
    for (let i = 0; i < messages.length; i += 1000) {
      await producer.send({ topic: t.topic, messages: messages.slice(i, i + 1000) });
    }

    const env = {
      ...t.env,
      ...FAST_GROUP,
      INGEST_SESSION_TIMEOUT_MS: '2000',
      INGEST_HEARTBEAT_MS: '200',
      INGEST_MAX_WRITES_PER_CALL: '100',
      REDIS_URL: proxy.url,
      LOG_LEVEL: 'info',
    };
    const worker = startService('ingest', env);
    cleanups.push(() => worker.kill('SIGKILL'));

    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
    const done = await waitFor(() => caughtUp(redis, space, ends), {
      timeoutMs: 120_000,
      intervalMs: 500,
      message: 'backlog applied',
    }).then(
      () => true,
      () => false,
    );
    const log = worker.readLog();
    const joins = log.split('\n').filter((line) => line.includes('joined the consumer group')).length;
    const [wm] = await readWatermarks(redis, space, [{ topic: t.topic, partition: 0 }]);
    expect({ done, wm, joins }).toEqual({ done: true, wm: events.length - 1, joins: 1 });
  });
});

/**
 * What every ingest test file sets up: its own topics and key prefix (testEnv), a Redis client
 * and a Kafka client; `close` removes them again.
 */
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { createTopics, deleteTopics, testEnv, type TestEnv } from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';

export interface IngestFixture {
  t: TestEnv;
  redis: Redis;
  kafka: Kafka;
  close(): Promise<void>;
}

export async function ingestFixture(name: string, partitions: number): Promise<IngestFixture> {
  const t = await testEnv(name);
  const topics = [t.topic, t.backfillTopic, t.dlqTopic];
  await createTopics(t.kafkaBrokers, topics, partitions);
  const redis = new Redis(t.redisUrl);
  const clientId = name.replace(/[^A-Za-z0-9]+/g, '-');
  const kafka = new Kafka({ clientId, brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  return {
    t,
    redis,
    kafka,
    async close() {
      redis.disconnect();
      await deleteTopics(t.kafkaBrokers, topics);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    },
  };
}

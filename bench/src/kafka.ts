/** The bench's Kafka topics: created fresh per data set, deleted when their events are in Redis. */
import { Kafka, logLevel, Partitioners, type Admin, type Producer } from 'kafkajs';
import { createTopicsWithLeaders } from '@va/testkit';
import type { BenchNames } from './names';

/** As the stack creates its live topic: 4 partitions (one ingest worker consumes them all). */
export const PARTITIONS = 4;

export function kafkaClient(brokers: string[]): Kafka {
  return new Kafka({ clientId: 'va-bench', brokers, logLevel: logLevel.WARN });
}

async function withAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

const topicsOf = (names: BenchNames) => [names.topic, names.backfillTopic, names.dlqTopic];

export async function deleteTopics(kafka: Kafka, names: BenchNames): Promise<void> {
  await withAdmin(kafka, async (admin) => {
    const existing = new Set(await admin.listTopics());
    const present = topicsOf(names).filter((t) => existing.has(t));
    if (present.length > 0) await admin.deleteTopics({ topics: present, timeout: 30_000 });
    // Deletion is asynchronous in the broker: wait until a create would not collide.
    for (let n = 0; n < 100 && present.length > 0; n++) {
      const left = new Set(await admin.listTopics());
      if (present.every((t) => !left.has(t))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
}

/** Deletes leftovers of an earlier run, then creates the topics empty. */
export async function recreateTopics(kafka: Kafka, names: BenchNames): Promise<void> {
  await deleteTopics(kafka, names);
  await withAdmin(kafka, (admin) =>
    createTopicsWithLeaders(admin, [
      { topic: names.topic, numPartitions: PARTITIONS },
      { topic: names.backfillTopic, numPartitions: PARTITIONS },
      { topic: names.dlqTopic, numPartitions: 1 },
    ]),
  );
}

/** Last offset per partition (high watermark - 1; -1 = empty). */
export async function lastOffsets(
  kafka: Kafka,
  topic: string,
): Promise<{ partition: number; last: number }[]> {
  return withAdmin(kafka, async (admin) =>
    (await admin.fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, last: Number(p.high) - 1 })),
  );
}

export async function connectedProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  return producer;
}

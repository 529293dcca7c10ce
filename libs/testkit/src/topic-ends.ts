// Where a topic's partitions end, to wait until a consumer caught up with them (@va/store/testing caughtUp).
import type { Kafka } from 'kafkajs';

/** Last offset of every partition of the topics (high watermark - 1; -1 = empty). */
export async function topicEnds(
  kafka: Kafka,
  topics: readonly string[],
): Promise<{ topic: string; partition: number; last: number }[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const out: { topic: string; partition: number; last: number }[] = [];
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        out.push({ topic, partition: p.partition, last: Number(p.high) - 1 });
      }
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

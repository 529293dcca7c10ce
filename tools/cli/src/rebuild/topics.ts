/**
 * What a rebuild needs to know of its topics (Kafka admin API): every partition's retained
 * offsets, the timestamp of the first retained record where older ones were deleted, each
 * topic's retention.ms, and the first offsets from a given time on.
 */
import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import { readTopicRanges } from '../ops/topic-reader';
import type { PartitionSpan } from './plan';

export interface TopicsInfo {
  spans: PartitionSpan[];
  retention: { topic: string; retentionMs: number | null }[];
}

async function withAdmin<T>(kafka: Kafka, action: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await action(admin);
  } finally {
    await admin.disconnect();
  }
}

export function inspectTopics(kafka: Kafka, topics: readonly string[]): Promise<TopicsInfo> {
  return withAdmin(kafka, async (admin) => {
    const spans: PartitionSpan[] = [];
    for (const topic of topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      const sorted = offsets.sort((a, b) => a.partition - b.partition);
      const firsts = await firstTimestamps(
        kafka,
        topic,
        sorted.map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) })),
      );
      for (const p of sorted) {
        spans.push({
          topic,
          partition: p.partition,
          low: Number(p.low),
          high: Number(p.high),
          firstTimestamp: firsts.get(p.partition) ?? null,
        });
      }
    }
    // kafkajs is CommonJS: its enums come from the default export under ESM.
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({
        type: kafkajs.ConfigResourceTypes.TOPIC,
        name,
        configNames: ['retention.ms'],
      })),
    });
    const retention = topics.map((topic) => {
      const entry = described.resources
        .find((r) => r.resourceName === topic)
        ?.configEntries.find((c) => c.configName === 'retention.ms');
      return { topic, retentionMs: entry?.configValue == null ? null : Number(entry.configValue) };
    });
    return { spans, retention };
  });
}

/**
 * Per partition: the first offset whose record is from `timestamp` or later; the earliest retained
 * offset when Kafka finds none (see below).
 */
export function offsetsAt(
  kafka: Kafka,
  topics: readonly string[],
  timestamp: number,
): Promise<{ topic: string; partition: number; offset: number }[]> {
  return withAdmin(kafka, async (admin) => {
    const out: { topic: string; partition: number; offset: number }[] = [];
    for (const topic of topics) {
      const retained = await admin.fetchTopicOffsets(topic);
      for (const o of await admin.fetchTopicOffsetsByTimestamp(topic, timestamp)) {
        // "None from then on" comes back as the end (kafkajs maps Kafka's -1 to it). Kafka also answers
        // so for some times it does hold records (before records deleted from a segment still on disk):
        // starting at the earliest retained record instead is always correct, only slower.
        const p = retained.find((r) => r.partition === o.partition);
        const end = Number(p?.high ?? o.offset);
        const offset = Number(o.offset) >= end ? Number(p?.low ?? 0) : Number(o.offset);
        out.push({ topic, partition: o.partition, offset });
      }
    }
    return out;
  });
}

/**
 * Kafka timestamp of the first retained record of each partition that lost older records (read
 * with a consumer: ListOffsets by timestamp cannot tell it, it answers "none" for times before
 * records deleted from a segment that is still on disk).
 */
async function firstTimestamps(
  kafka: Kafka,
  topic: string,
  partitions: readonly { partition: number; low: number; high: number }[],
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  const ranges = partitions.map((p) => ({
    partition: p.partition,
    from: p.low,
    to: p.low > 0 && p.high > p.low ? p.low + 1 : p.low,
  }));
  await readTopicRanges(kafka, topic, ranges, (partition, messages) => {
    if (messages[0]) out.set(partition, Number(messages[0].timestamp));
  });
  return out;
}

/** The CLI's Kafka client: quiet (operators read the command's own output), brokers from the config. */
import { Kafka, logLevel } from 'kafkajs';
import type { Config } from '@va/config';

export const cliKafka = (config: Pick<Config, 'kafkaBrokers'>, clientId: string): Kafka =>
  new Kafka({ clientId, brokers: config.kafkaBrokers, logLevel: logLevel.NOTHING });

/** One partition of one topic and its offsets: low = earliest retained, high = next to be written. */
export interface PartitionOffsets {
  topic: string;
  partition: number;
  low: number;
  high: number;
}

export async function topicOffsets(kafka: Kafka, topics: readonly string[]): Promise<PartitionOffsets[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const out: PartitionOffsets[] = [];
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        out.push({ topic, partition: p.partition, low: Number(p.low), high: Number(p.high) });
      }
    }
    return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  } finally {
    await admin.disconnect();
  }
}

import type { Admin, ITopicConfig } from 'kafkajs';
import { waitFor } from './wait.js';

/**
 * Creates the topics (existing ones are left alone) and waits until the broker's metadata names a leader
 * for every partition of each. kafkajs's own `waitForLeaders` retries only LEADER_NOT_AVAILABLE, but a KRaft
 * broker publishes a new topic's metadata asynchronously (KAFKA-15780) and may answer
 * UNKNOWN_TOPIC_OR_PARTITION for a moment after the create, which kafkajs then throws: on a loaded machine
 * that failed a test file's setup. Here both answers mean "not yet".
 */
export async function createTopicsWithLeaders(
  admin: Admin,
  topics: ITopicConfig[],
  timeoutMs = 30_000,
): Promise<void> {
  await admin.createTopics({ topics, waitForLeaders: false, timeout: timeoutMs });
  const names = topics.map((t) => t.topic);
  await waitFor(
    async () => {
      const metadata = await admin.fetchTopicMetadata({ topics: names });
      return names.every((name) => {
        const partitions = metadata.topics.find((t) => t.name === name)?.partitions ?? [];
        return partitions.length > 0 && partitions.every((p) => p.leader >= 0);
      });
    },
    { timeoutMs, message: `a leader for every partition of ${names.join(', ')}` },
  );
}

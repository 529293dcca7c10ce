import type { Admin, ITopicConfig } from 'kafkajs';
import { waitFor } from './wait.js';

/**
 * Creates the topics (existing ones are left alone) and waits until every partition of each is served by its
 * leader. A KRaft broker publishes a new topic's metadata first and readies its partitions after (KAFKA-15780):
 * for a moment metadata requests answer UNKNOWN_TOPIC_OR_PARTITION, then name a leader that still answers
 * NOT_LEADER_OR_FOLLOWER. kafkajs's own `waitForLeaders` retries only LEADER_NOT_AVAILABLE and threw the first,
 * which failed a test file's setup on a loaded machine. Here the check is a ListOffsets on every partition
 * (answered by the leader itself), and every error means "not yet".
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
      for (const name of names) {
        if ((await admin.fetchTopicOffsets(name)).length === 0) return false;
      }
      return true;
    },
    { timeoutMs, message: `every partition of ${names.join(', ')} served by its leader` },
  );
}

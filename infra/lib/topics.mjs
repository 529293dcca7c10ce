// The stack's topics (docs/api.md#the-event, #dead-letters), named as libs/config names them, kept as long as the longest rollup.
import { KAFKA_RETENTION_MS } from '../kafka.mjs';
import { createTopics, fetchMetadata, parseBroker, TOPIC_ALREADY_EXISTS } from './kafka-wire.mjs';
import { waitUntil } from './proc.mjs';

export function topicNames(env = process.env) {
  const topic = env.KAFKA_TOPIC || 'key-verifications';
  return {
    topic,
    dlqTopic: env.KAFKA_DLQ_TOPIC || `${topic}.dlq`,
    backfillTopic: env.KAFKA_BACKFILL_TOPIC || `${topic}.backfill`,
  };
}

/** Live and backfill topics are consumed in parallel (4 partitions); the DLQ is only read by people. */
export function topicSpecs(env = process.env) {
  const { topic, dlqTopic, backfillTopic } = topicNames(env);
  const configs = { 'retention.ms': String(KAFKA_RETENTION_MS) };
  return [
    { name: topic, partitions: 4, replicationFactor: 1, configs },
    { name: dlqTopic, partitions: 1, replicationFactor: 1, configs },
    { name: backfillTopic, partitions: 4, replicationFactor: 1, configs },
  ];
}

/** Creates missing topics; existing ones are kept as they are. Returns the names created. */
export async function ensureTopics(brokers, env, log) {
  const broker = parseBroker(brokers.split(',')[0]);
  await waitUntil(async () => (await fetchMetadata(broker)).brokers.length > 0, {
    timeoutMs: 60_000,
    what: `kafka at ${brokers}`,
  });
  const results = await createTopics(broker, topicSpecs(env));
  const created = [];
  for (const result of results) {
    if (result.errorCode === 0) created.push(result.name);
    else if (result.errorCode !== TOPIC_ALREADY_EXISTS) {
      throw new Error(
        `creating topic ${result.name}: error ${result.errorCode} ${result.errorMessage ?? ''}`,
      );
    }
  }
  if (created.length > 0) log(`created topics ${created.join(', ')}`);
  return created;
}

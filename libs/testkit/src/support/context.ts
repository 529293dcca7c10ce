// Per-test isolation on the shared test servers: every call gets its own topics, key prefix, consumer group
// and ports, and the full environment a service child process needs to use them. No Redis client here (testkit
// imports no package that tests it): connect, list keys and clean up with @va/store/testing.
import crypto from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { inject } from 'vitest';
import { freePort } from './ports.js';
import { createTopicsWithLeaders } from './topics.js';

/**
 * Where a test's Redis is, in the shape of @va/store's RedisTarget (connectTarget, deletePrefix of
 * @va/store/testing take it): the single test Redis, or a cluster (non-empty redisClusterNodes).
 */
export interface TestRedis {
  redisUrl: string;
  redisClusterNodes: readonly string[];
}

export interface TestEnv {
  /** The single test Redis (also set in the `cluster` project, where `redis` points at the cluster). */
  redisUrl: string;
  /** Where this test's Redis is: the single test Redis, or the `cluster` project's Redis Cluster. */
  redis: TestRedis;
  kafkaBrokers: string[];
  /** Unique per call, e.g. `t-ingest-3fa9c2`; use it as REDIS_KEY_PREFIX and in names. */
  keyPrefix: string;
  topic: string;
  dlqTopic: string;
  backfillTopic: string;
  consumerGroup: string;
  /** Free ports picked for this test's services. */
  port: number;
  ingestMetricsPort: number;
  compactorMetricsPort: number;
  /** The query service's internal port (/metrics and the probes). */
  queryMetricsPort: number;
  /** http://127.0.0.1:<port> of the query service started with `env`. */
  queryUrl: string;
  /** process.env plus every variable of libs/config pointing at this test's servers, names and ports. */
  env: Record<string, string>;
}

/** Names that are safe as Kafka topics and Redis prefixes: [a-z0-9-] only. */
function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'test'
  );
}

/**
 * The Redis of this test run: the single test Redis, or in the `cluster` project (vitest.config.ts) its
 * Redis Cluster. Connect with connectTarget(); clean up with deletePrefix(target, prefix) (@va/store/testing).
 */
export function testRedisTarget(): TestRedis {
  const nodes = inject('redisClusterNodes');
  return { redisUrl: inject('redisUrl'), redisClusterNodes: nodes ? nodes.split(',') : [] };
}

export async function testEnv(name: string): Promise<TestEnv> {
  const redisUrl = inject('redisUrl');
  const redis = testRedisTarget();
  const brokers = inject('kafkaBrokers');
  const id = `t-${slug(name)}-${crypto.randomBytes(4).toString('hex')}`;
  const [port, ingestMetricsPort, compactorMetricsPort, queryMetricsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const names = {
    keyPrefix: id,
    topic: `${id}.events`,
    dlqTopic: `${id}.events.dlq`,
    backfillTopic: `${id}.events.backfill`,
    consumerGroup: `${id}-ingest`,
  };
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    redisUrl,
    redis,
    kafkaBrokers: brokers.split(',').map((b) => b.trim()),
    ...names,
    port,
    ingestMetricsPort,
    compactorMetricsPort,
    queryMetricsPort,
    queryUrl: `http://127.0.0.1:${port}`,
    env: {
      ...inherited,
      REDIS_URL: redisUrl,
      REDIS_CLUSTER_NODES: redis.redisClusterNodes.join(','),
      KAFKA_BROKERS: brokers,
      REDIS_KEY_PREFIX: names.keyPrefix,
      KAFKA_TOPIC: names.topic,
      KAFKA_DLQ_TOPIC: names.dlqTopic,
      KAFKA_BACKFILL_TOPIC: names.backfillTopic,
      KAFKA_GROUP: names.consumerGroup,
      PORT: String(port),
      HOST: '127.0.0.1',
      INGEST_METRICS_PORT: String(ingestMetricsPort),
      COMPACTOR_METRICS_PORT: String(compactorMetricsPort),
      QUERY_METRICS_PORT: String(queryMetricsPort),
      LOG_LEVEL: 'warn',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
    },
  };
}

/**
 * Consumer-group timings for tests that SIGKILL workers: a dead member leaves its group within ~6 s
 * instead of the 30 s default, so that the survivors (or a restarted worker) take its partitions
 * over quickly (6 s: a restarted worker's first batches over a backlog took more than 3 s on a loaded 2-core machine, and a member that misses its session over and over never commits). The test broker accepts sessions from 1 s (group.min.session.timeout.ms in
 * infra/kafka.mjs; Kafka's own minimum is 6 s).
 */
export const FAST_GROUP = {
  INGEST_SESSION_TIMEOUT_MS: '6000',
  INGEST_HEARTBEAT_MS: '300',
  INGEST_REBALANCE_TIMEOUT_MS: '10000',
  INGEST_RETRY_BACKOFF_MS: '200',
} as const;

function admin(brokers: string[]) {
  return new Kafka({ clientId: 'test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
}

/** Creates the topics (existing ones are left alone) and waits until their leaders are elected. */
export async function createTopics(brokers: string[], topics: string[], partitions = 4): Promise<void> {
  const client = admin(brokers);
  await client.connect();
  try {
    await createTopicsWithLeaders(
      client,
      topics.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
    );
  } finally {
    await client.disconnect();
  }
}

/** Deletes topics a test created (missing ones are ignored). */
export async function deleteTopics(brokers: string[], topics: string[]): Promise<void> {
  const client = admin(brokers);
  await client.connect();
  try {
    const existing = new Set(await client.listTopics());
    const present = topics.filter((t) => existing.has(t));
    if (present.length > 0) await client.deleteTopics({ topics: present });
  } finally {
    await client.disconnect();
  }
}

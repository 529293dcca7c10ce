// Per-test isolation on the shared test servers: every call gets its own topics, key prefix, consumer group
// and ports, and the full environment a service child process needs to use them.
import crypto from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import {
  connectRedis,
  escapeGlob,
  scanKeys,
  unlinkKeys,
  type RedisClient,
  type RedisTarget,
} from '@va/store';
import { inject } from 'vitest';
import { freePort } from './ports.js';
import { createTopicsWithLeaders } from './topics.js';

export interface TestEnv {
  /** The single test Redis (also set in the `cluster` project, where `redis` points at the cluster). */
  redisUrl: string;
  /** Where this test's Redis is: the single test Redis, or the `cluster` project's Redis Cluster. */
  redis: RedisTarget;
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
 * Redis Cluster. Connect with connectTarget(); clean up with deletePrefix(target, prefix).
 */
export function testRedisTarget(): RedisTarget {
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
 * Consumer-group timings for tests that SIGKILL workers: a dead member leaves its group within ~3 s
 * instead of the 30 s default, so that the survivors (or a restarted worker) take its partitions
 * over quickly. The test broker accepts sessions from 1 s (group.min.session.timeout.ms in
 * infra/kafka.mjs; Kafka's own minimum is 6 s).
 */
export const FAST_GROUP = {
  INGEST_SESSION_TIMEOUT_MS: '3000',
  INGEST_HEARTBEAT_MS: '300',
  INGEST_REBALANCE_TIMEOUT_MS: '5000',
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

/**
 * Removes every key starting with prefix (SCAN + UNLINK, on every master of a cluster); returns how many
 * were removed. `redis`: the test Redis' URL, or a cluster's target (TestCluster.target).
 */
export async function deletePrefix(redis: string | RedisTarget, prefix: string): Promise<number> {
  if (prefix.length === 0) throw new Error('deletePrefix: refusing an empty prefix');
  const target = typeof redis === 'string' ? { redisUrl: redis, redisClusterNodes: [] } : redis;
  const client = connectRedis(target, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await client.connect();
  let removed = 0;
  try {
    // Key names may hold glob characters ({apiId} hash tags, '[' ...): escape the prefix for MATCH.
    for await (const keys of scanKeys(client, `${escapeGlob(prefix)}*`))
      removed += await unlinkKeys(client, keys);
  } finally {
    client.disconnect();
  }
  return removed;
}

/** KEYS for tests, on every master of a cluster too (SCAN MATCH `pattern`), sorted and without repeats. */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const out = new Set<string>();
  for await (const keys of scanKeys(redis, pattern)) for (const key of keys) out.add(key);
  return [...out].sort();
}

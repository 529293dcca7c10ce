/**
 * The one place that connects to Redis: a single node (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES,
 * ioredis `Cluster`). Everything else takes a `RedisClient` and stays within the rules a cluster sets:
 * every multi-key command and Lua script keeps its keys in one hash slot (keys.ts), a pipeline is built with
 * newPipeline (pipeline.ts: split per slot on a cluster), and a key scan runs on every master (scanKeys).
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redactSecrets } from '@va/config';

/** A connection to the project's Redis, single node or cluster. */
export type RedisClient = Redis | Cluster;

/** Where the store lives (libs/config: REDIS_URL, REDIS_CLUSTER_NODES). */
export interface RedisTarget {
  redisUrl: string;
  /** host:port of some cluster nodes; non-empty = connect to a cluster (redisUrl is then ignored). */
  redisClusterNodes: readonly string[];
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

function parseNode(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = colon > 0 ? address.slice(0, colon) : address;
  const port = colon > 0 ? Number(address.slice(colon + 1)) : 6379;
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`bad Redis node address ${address}`);
  return { host, port };
}

/**
 * A `Redis` for REDIS_URL, or a `Cluster` seeded with REDIS_CLUSTER_NODES (it learns the other nodes
 * itself). `options` are per-connection options (maxRetriesPerRequest, connectionName, lazyConnect, ...);
 * on a cluster they apply to every node connection, and the client follows MOVED/ASK, retries while a
 * failed master is replaced by its replica, and reads from masters only (counts must be read-your-writes).
 */
export function connectRedis(
  target: RedisTarget,
  options: RedisOptions = {},
  clusterOptions: ClusterOptions = {},
): RedisClient {
  if (target.redisClusterNodes.length === 0) return new Redis(target.redisUrl, options);
  const { lazyConnect, maxRetriesPerRequest, enableOfflineQueue, ...nodeOptions } = options;
  return new Cluster(target.redisClusterNodes.map(parseNode), {
    scaleReads: 'master',
    lazyConnect,
    enableOfflineQueue,
    // A failover takes the cluster's node timeout plus an election: keep redirecting meanwhile.
    maxRedirections: 32,
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
    // Learn the slot map again every 5 s (ioredis 5 never does by itself). A master that hangs instead of
    // dying (its host stopped answering) closes no connection and sends no MOVED: only a refresh finds its
    // replica promoted and sends the next commands there. (A command already waiting on the hung node may
    // wait on: the ingest worker's connection bounds that, INGEST_REDIS_TIMEOUT_MS.) With neither, a worker
    // waited on that node for good (services/ingest/test/hung-master.int.test.ts).
    slotsRefreshInterval: 5_000,
    ...clusterOptions,
    redisOptions: { ...nodeOptions, maxRetriesPerRequest },
  });
}

/** "Redis at redis://..." or "Redis Cluster at host:port,...", for messages: REDIS_URL's password redacted. */
export function describeTarget(target: RedisTarget): string {
  return target.redisClusterNodes.length > 0
    ? `Redis Cluster at ${target.redisClusterNodes.join(',')}`
    : `Redis at ${redactSecrets(target.redisUrl)}`;
}

/** The clients to send a whole-keyspace command to: every master of a cluster, or the one node. */
export function masterNodes(redis: RedisClient): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/** SCAN MATCH treats * ? [ ] \ as glob syntax: a key prefix must match itself only. */
export const escapeGlob = (s: string): string => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/**
 * Every key matching `pattern` (SCAN MATCH syntax), in batches of about `count`, from every master of a
 * cluster (each holds only its own slots) or from the one node. A key may come twice (SCAN's guarantee);
 * callers that act on keys must be idempotent (DEL, UNLINK are).
 */
export async function* scanKeys(redis: RedisClient, pattern: string, count = 1000): AsyncGenerator<string[]> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping(); // learn the slot map first
  for (const node of masterNodes(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/**
 * Unlinks keys that may lie in many slots: one UNLINK of all of them on one node; on a cluster one UNLINK
 * per key, all sent at once (each node connection writes them back to back, so this is one round trip per
 * node, not per key).
 */
export async function unlinkKeys(redis: RedisClient, keys: readonly string[]): Promise<number> {
  if (keys.length === 0) return 0;
  if (!isCluster(redis)) return redis.unlink(...keys);
  const removed = await Promise.all(keys.map((key) => redis.unlink(key)));
  return removed.reduce((a, b) => a + b, 0);
}

/**
 * Configuration from the environment: the one module that reads it. Every variable,
 * its default, parser and meaning is one entry of the table in environment.ts; this file shapes
 * the parsed values for the services, the CLI, the stack scripts and tests.
 */
import type { Retention } from '@va/core';
import { readEnvironment, type VariableName } from './environment';

export {
  ENVIRONMENT,
  readEnvironment,
  type Environment,
  type Variable,
  type VariableName,
} from './environment';
export {
  DEFAULT_COMPACTOR_SETTINGS,
  DEFAULT_INGEST_SETTINGS,
  loadCompactorSettings,
  loadIngestSettings,
  type CompactorSettings,
  type IngestSettings,
} from './tuning';
export { parseReadTokenKeys } from './read-token-keys';
export { redactSecrets } from './redact';

export interface Config {
  kafkaBrokers: string[];
  /** Live topic of verification events. */
  topic: string;
  /** Dead-letter topic for events that can never be counted. */
  dlqTopic: string;
  /** Topic the backfill CLI writes into; consumed beside the live topic. */
  backfillTopic: string;
  redisUrl: string;
  /** REDIS_CLUSTER_NODES: host:port of Redis Cluster nodes; non-empty = use that cluster, not redisUrl. */
  redisClusterNodes: string[];
  /** Prefix of every Redis key of the project (tests use their own). */
  keyPrefix: string;
  port: number;
  /** Prometheus /metrics ports of the ingest worker, the compactor and the query service (not its public port). */
  ingestMetricsPort: number;
  compactorMetricsPort: number;
  queryMetricsPort: number;
  host: string;
  /** Retention per resolution, in milliseconds. */
  retention: Retention;
  /** A closed hour is compacted this long after it ends (room for late events). */
  compactionGraceMs: number;
  /** How often the compactor's scheduler looks for work. */
  compactionEveryMs: number;
  /** Row cap of one query response without a limit that brings it under. */
  maxRows: number;
  /** Dictionary entries the query service keeps in memory over all APIs (least recently used go first). */
  queryDictionaryCacheEntries: number;
  /** MiB of decoded sealed sections kept between queries (main thread and read workers together). */
  querySectionCacheMb: number;
  /** Time budget of one query request; past it the request is answered 503 query_timeout and its reads stop. */
  queryTimeoutMs: number;
  /**
   * Estimated work (ms of one core, from the sections' row counts: docs/query-isolation.md "Cost refused
   * up front") above which a query is refused before it reads its counters; 0 = no limit.
   */
  queryMaxCost: number;
  /** Ms a query service keeps root keys, read-token deny entries and API owners in memory (revocation delay); 0 = none. */
  queryAuthCacheMs: number;
  /** Requests per root key and window (all query services together, counted in Redis); 0 = no limit. */
  queryRateLimit: number;
  queryRateWindowMs: number;
  /** Requests of one root key answered at the same time (all query services together); 0 = no limit. */
  queryMaxConcurrent: number;
  /**
   * Share (0-1] of the root key's rate and concurrency limits that one read-token subject (an externalId
   * of the root key's tokens) may use; each limit rounded down, at least 1.
   */
  querySubjectShare: number;
  /** Worker threads answering heavy queries off the main thread; 0 = answer every query on the main thread. */
  queryWorkers: number;
  /** Share of query-service requests with an access-log line (QUERY_ACCESS_LOG: on = 1, off = 0); 5xx always. */
  queryAccessLog: number;
  /** Open live streams per query service (GET /v1/analytics.stream); 0 = streams are off. */
  queryStreamMax: number;
  /** Open live streams per root key (its read tokens' included) on one query service; 0 = no limit of its own. */
  queryStreamMaxPerKey: number;
  /** Every open stream query is read again at least this often (ms), change signal or not. */
  queryStreamRefreshMs: number;
  /** A heartbeat comment on an open stream after this long (ms) without an event. */
  queryStreamHeartbeatMs: number;
  /** Base of error.type URIs. */
  docsUrl: string;
  /** Consumer group of the ingest workers. */
  consumerGroup: string;
  logLevel: string;
  /** Base URL of the query service for the CLI's `query` (QUERY_URL; default: this host's PORT). */
  queryUrl: string;
  /** Root key or read token the CLI's `query` and `token create` send, unless --token-stdin reads one (ANALYTICS_TOKEN). */
  analyticsToken: string | undefined;
  /**
   * Keys of end-user read tokens (READ_TOKEN_KEYS = `kid:secret[,kid:secret…]`): the first signs new
   * tokens, every one verifies (rotation). Empty: read tokens are off.
   */
  readTokenKeys: { kid: string; secret: string }[];
  /** Webhooks may go to loopback, private and link-local addresses (ALERTS_ALLOW_PRIVATE_URLS). */
  alertsAllowPrivateUrls: boolean;
  /** Deadline of one webhook attempt (ms). */
  alertsDeliveryTimeoutMs: number;
  /** How often new crossings are read and their webhooks queued (ms). */
  alertsPollMs: number;
  /** Webhooks one process sends at once. */
  alertsDeliveryConcurrency: number;
  /** Wait after a webhook's first failed attempt (ms); doubles up to an hour. */
  alertsRetryBaseMs: number;
  /** Lock of a webhook being sent (ms): a killed process's webhooks are sent again after about this long. */
  alertsDeliveryLockMs: number;
  /** Crossings a dead process read but had not queued are taken over after this long (ms). */
  alertsClaimIdleMs: number;
  /** Test hook: a fixed server clock (unix ms). Unset in production. */
  fixedNowMs: number | undefined;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * A rollup is kept at least as long as the buckets it sums: readers rely on it (a day that holds
 * nothing, while the hours it would hold are kept, proves those hours hold nothing: docs/rollups.md
 * "Retention"), and keeping hours past their day answers nothing a day could not.
 */
function checkRetention(e: ReturnType<typeof readEnvironment>): void {
  if (e.RETENTION_DAYS_DAYS < e.RETENTION_HOURS_DAYS)
    throw new Error(
      `RETENTION_DAYS_DAYS (${e.RETENTION_DAYS_DAYS}) must be at least RETENTION_HOURS_DAYS (${e.RETENTION_HOURS_DAYS}): a day rollup is kept as long as its hours`,
    );
  if (e.RETENTION_MONTHS_DAYS < e.RETENTION_DAYS_DAYS)
    throw new Error(
      `RETENTION_MONTHS_DAYS (${e.RETENTION_MONTHS_DAYS}) must be at least RETENTION_DAYS_DAYS (${e.RETENTION_DAYS_DAYS}): a month rollup is kept as long as its days`,
    );
}

/**
 * Reads the environment table (environment.ts). `defaults`: a program's own defaults for some
 * variables, used when the variable is not set (the CLI logs only errors unless LOG_LEVEL is set).
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaults: Partial<Record<VariableName, string>> = {},
): Config {
  const e = readEnvironment({ ...defaults, ...withoutEmpty(env) });
  checkRetention(e);
  return {
    kafkaBrokers: e.KAFKA_BROKERS,
    topic: e.KAFKA_TOPIC,
    dlqTopic: e.KAFKA_DLQ_TOPIC,
    backfillTopic: e.KAFKA_BACKFILL_TOPIC,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    keyPrefix: e.REDIS_KEY_PREFIX,
    port: e.PORT,
    ingestMetricsPort: e.INGEST_METRICS_PORT,
    compactorMetricsPort: e.COMPACTOR_METRICS_PORT,
    queryMetricsPort: e.QUERY_METRICS_PORT,
    host: e.HOST,
    retention: {
      hourMs: e.RETENTION_HOURS_DAYS * DAY_MS,
      dayMs: e.RETENTION_DAYS_DAYS * DAY_MS,
      monthMs: e.RETENTION_MONTHS_DAYS * DAY_MS,
      minuteMs: e.RETENTION_MINUTES_HOURS * HOUR_MS,
    },
    compactionGraceMs: e.COMPACTION_GRACE_MS,
    compactionEveryMs: e.COMPACTION_EVERY_MS,
    maxRows: e.MAX_ROWS,
    queryDictionaryCacheEntries: e.QUERY_DICTIONARY_CACHE_ENTRIES,
    querySectionCacheMb: e.QUERY_SECTION_CACHE_MB,
    queryTimeoutMs: e.QUERY_TIMEOUT_MS,
    queryMaxCost: e.QUERY_MAX_COST,
    queryAuthCacheMs: e.QUERY_AUTH_CACHE_MS,
    queryRateLimit: e.QUERY_RATE_LIMIT,
    queryRateWindowMs: e.QUERY_RATE_WINDOW_MS,
    queryMaxConcurrent: e.QUERY_MAX_CONCURRENT,
    querySubjectShare: e.QUERY_SUBJECT_SHARE,
    queryWorkers: e.QUERY_WORKERS,
    queryAccessLog: e.QUERY_ACCESS_LOG,
    queryStreamMax: e.QUERY_STREAM_MAX,
    queryStreamMaxPerKey: e.QUERY_STREAM_MAX_PER_KEY,
    queryStreamRefreshMs: e.QUERY_STREAM_REFRESH_MS,
    queryStreamHeartbeatMs: e.QUERY_STREAM_HEARTBEAT_MS,
    docsUrl: e.DOCS_URL,
    consumerGroup: e.KAFKA_GROUP,
    logLevel: e.LOG_LEVEL,
    fixedNowMs: e.FIXED_NOW_MS,
    queryUrl: e.QUERY_URL,
    analyticsToken: e.ANALYTICS_TOKEN,
    readTokenKeys: e.READ_TOKEN_KEYS,
    alertsAllowPrivateUrls: e.ALERTS_ALLOW_PRIVATE_URLS,
    alertsDeliveryTimeoutMs: e.ALERTS_DELIVERY_TIMEOUT_MS,
    alertsPollMs: e.ALERTS_POLL_MS,
    alertsDeliveryConcurrency: e.ALERTS_DELIVERY_CONCURRENCY,
    alertsRetryBaseMs: e.ALERTS_RETRY_BASE_MS,
    alertsDeliveryLockMs: e.ALERTS_DELIVERY_LOCK_MS,
    alertsClaimIdleMs: e.ALERTS_CLAIM_IDLE_MS,
  };
}

const withoutEmpty = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));

/** The server clock: real time, or the fixed test clock. */
export function clockOf(config: Pick<Config, 'fixedNowMs'>): () => number {
  const fixed = config.fixedNowMs;
  return fixed === undefined ? () => Date.now() : () => fixed;
}

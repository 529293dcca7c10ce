/**
 * The environment table: every variable the project reads, with its default, its parser and what it
 * does. Nothing else in the repository reads process.env for configuration; the README's
 * configuration table lists the same variables (environment.test.ts checks that it does).
 * A new variable is one entry here, one field of Config (index.ts) and one row in the README.
 */
import { availableParallelism } from 'node:os';
import { parseReadTokenKeys } from './read-token-keys';

/** One environment variable. `fallback` is raw text, parsed like a set value. */
export interface Variable<T> {
  /** Raw default; a function when it derives from another variable (KAFKA_DLQ_TOPIC). */
  fallback: string | ((read: (name: string) => string) => string);
  parse: (raw: string, name: string) => T;
  doc: string;
}

const variable = <T>(
  fallback: Variable<T>['fallback'],
  parse: Variable<T>['parse'],
  doc: string,
): Variable<T> => ({
  fallback,
  parse,
  doc,
});

// Parsers: each says what it accepts in the error it throws.
const text = (raw: string): string => raw;
function nonNegativeInt(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}
function positiveInt(raw: string, name: string): number {
  const value = nonNegativeInt(raw, name);
  if (value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}
function onOff(raw: string, name: string): boolean {
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new Error(`${name} must be on or off, got ${raw}`);
}
/** The revocation delay of the query service's auth cache: 0 to 1000 ms (docs/api.md#auth promises 1 s). */
function authCacheMs(raw: string, name: string): number {
  const value = nonNegativeInt(raw, name);
  if (value > 1000) throw new Error(`${name} must be at most 1000 (ms), got ${raw}`);
  return value;
}
/** A fraction in (0, 1]. */
function share(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1)
    throw new Error(`${name} must be a number above 0 and at most 1, got ${raw}`);
  return value;
}
/** on = 1, off = 0, or a share in [0, 1]: how many of a kind of event are logged. */
function sampleRate(raw: string, name: string): number {
  if (raw === 'on') return 1;
  if (raw === 'off') return 0;
  const value = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new Error(`${name} must be on, off or a number from 0 to 1, got ${raw}`);
  return value;
}
const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
/** Unset (empty) stays undefined. */
const optionalInt = (raw: string, name: string): number | undefined =>
  raw === '' ? undefined : nonNegativeInt(raw, name);

export const ENVIRONMENT = {
  // Kafka
  KAFKA_BROKERS: variable(
    '127.0.0.1:9092',
    list,
    'Comma-separated brokers. Set: use that Kafka, start none locally.',
  ),
  KAFKA_TOPIC: variable('key-verifications', text, 'Live topic of verification events.'),
  KAFKA_DLQ_TOPIC: variable(
    (read) => `${read('KAFKA_TOPIC')}.dlq`,
    text,
    'Dead-letter topic: events that can never be counted, reason in a header.',
  ),
  KAFKA_BACKFILL_TOPIC: variable(
    (read) => `${read('KAFKA_TOPIC')}.backfill`,
    text,
    'Topic the backfill CLI writes into; consumed beside the live topic.',
  ),
  KAFKA_GROUP: variable('verification-ingest', text, 'Consumer group of the ingest workers.'),
  // Redis
  REDIS_URL: variable(
    'redis://127.0.0.1:6380',
    text,
    'The Redis of the stack. Set: use that Redis, start none locally.',
  ),
  REDIS_CLUSTER_NODES: variable(
    '',
    list,
    'Redis Cluster instead of REDIS_URL: comma-separated host:port of some of its nodes (the client finds the rest).',
  ),
  REDIS_KEY_PREFIX: variable('va', text, 'Prefix of every Redis key of the project (tests use their own).'),
  // Ports
  PORT: variable('8080', nonNegativeInt, 'Port of the query service.'),
  HOST: variable('0.0.0.0', text, 'Interface the query service listens on.'),
  INGEST_METRICS_PORT: variable('9101', nonNegativeInt, 'Prometheus /metrics of the ingest worker.'),
  COMPACTOR_METRICS_PORT: variable('9102', nonNegativeInt, 'Prometheus /metrics of the compactor.'),
  QUERY_METRICS_PORT: variable(
    '9103',
    nonNegativeInt,
    'Prometheus /metrics of the query service (and its probes), apart from the public PORT.',
  ),
  // Retention and compaction
  RETENTION_HOURS_DAYS: variable('35', nonNegativeInt, 'How long hour buckets are kept, in days.'),
  RETENTION_DAYS_DAYS: variable(
    '400',
    nonNegativeInt,
    'How long day rollups are kept, in days; at least RETENTION_HOURS_DAYS.',
  ),
  RETENTION_MONTHS_DAYS: variable(
    String(5 * 366),
    nonNegativeInt,
    'How long month rollups are kept, in days; at least RETENTION_DAYS_DAYS.',
  ),
  RETENTION_MINUTES_HOURS: variable(
    '48',
    nonNegativeInt,
    'How long minute buckets (groupBy=minute) are kept, in hours; 0 keeps none (groupBy=minute is then refused).',
  ),
  COMPACTION_GRACE_MS: variable(
    '300000',
    nonNegativeInt,
    'A closed hour is compacted this long after it ends (room for late events).',
  ),
  COMPACTION_EVERY_MS: variable('30000', nonNegativeInt, 'How often the compactor looks for work.'),
  // Query service
  MAX_ROWS: variable(
    '100000',
    nonNegativeInt,
    'Row cap of one response without a limit that brings it under.',
  ),
  QUERY_DICTIONARY_CACHE_ENTRIES: variable(
    '2000000',
    nonNegativeInt,
    'Dictionary entries the query service keeps in memory over all APIs (least recently used APIs dropped beyond).',
  ),
  QUERY_SECTION_CACHE_MB: variable(
    '256',
    nonNegativeInt,
    'Memory (MiB) for decoded sealed sections the query service keeps between queries, split evenly between its main thread and each read worker; 0 = none.',
  ),
  QUERY_TIMEOUT_MS: variable(
    '10000',
    positiveInt,
    'Time budget of one query request; past it the answer is 503 query_timeout and the reads stop.',
  ),
  QUERY_MAX_COST: variable(
    '2000',
    nonNegativeInt,
    'Estimated work (ms of one core) above which a query is refused up front with 422 query_too_expensive, before its counters are read (docs/query-isolation.md "Cost refused up front"); 0 = no limit.',
  ),
  QUERY_AUTH_CACHE_MS: variable(
    '1000',
    authCacheMs,
    "How long (ms, at most 1000) a query service keeps a root key, a read token's deny-list entry and an API's owner (with its default time zone) in memory; a revocation is refused, and a changed default zone applied, by every service within this delay (docs/api.md#auth). 0 = read them from Redis on every request.",
  ),
  QUERY_RATE_LIMIT: variable(
    '300',
    nonNegativeInt,
    'Query requests per root key per window, counted in Redis across every query service; 0 = no limit.',
  ),
  QUERY_RATE_WINDOW_MS: variable('1000', positiveInt, 'Window of QUERY_RATE_LIMIT (a fixed window).'),
  QUERY_MAX_CONCURRENT: variable(
    '4',
    nonNegativeInt,
    'Query requests of one root key in progress at once, across every query service; 0 = no limit.',
  ),
  QUERY_SUBJECT_SHARE: variable(
    '0.5',
    share,
    "Share of its root key's QUERY_RATE_LIMIT and QUERY_MAX_CONCURRENT that the read tokens of one end user (externalId) may use, rounded down, at least 1; the rest stays for the root key and other end users (docs/read-tokens.md). 1 = no limit of their own.",
  ),
  QUERY_ACCESS_LOG: variable(
    'on',
    sampleRate,
    'One JSON access-log line per request (info level): on, off, or the share of requests logged, e.g. 0.1 (5xx always).',
  ),
  QUERY_WORKERS: variable(
    'auto',
    (raw, name) =>
      raw === 'auto' ? Math.max(1, Math.min(4, availableParallelism() - 1)) : nonNegativeInt(raw, name),
    'Worker threads answering heavy queries off the main thread (auto: cores - 1, 1 to 4); 0 = none.',
  ),
  QUERY_STREAM_MAX: variable(
    '10000',
    nonNegativeInt,
    'Open live streams (GET /v1/analytics.stream) one query service holds at most; beyond it a new stream is refused with 503 too_many_streams. 0 = streams are off.',
  ),
  QUERY_STREAM_MAX_PER_KEY: variable(
    '100',
    nonNegativeInt,
    "Open live streams of one root key (its read tokens' included) on one query service; beyond it 429 too_many_requests. 0 = no limit of its own.",
  ),
  QUERY_STREAM_REFRESH_MS: variable(
    '10000',
    positiveInt,
    'Every open stream query is read again at least this often, change signal or not (an ingest worker that publishes none, a lost signal, a rebuild).',
  ),
  QUERY_STREAM_HEARTBEAT_MS: variable(
    '15000',
    positiveInt,
    'A comment line is sent on an open stream this often when no event was, so that proxies keep the connection open.',
  ),
  DOCS_URL: variable(
    'https://docs.verification-analytics.dev/errors',
    (raw) => raw.replace(/\/+$/, ''),
    'Base of error.type URIs.',
  ),
  // CLI
  QUERY_URL: variable(
    (read) => `http://127.0.0.1:${read('PORT')}`,
    text,
    "Where the CLI's query command finds the query service.",
  ),
  ANALYTICS_TOKEN: variable(
    '',
    (raw) => (raw === '' ? undefined : raw),
    "Root key or read token the CLI's query command (and token create) sends, unless --token-stdin reads it from stdin.",
  ),
  // Read tokens
  READ_TOKEN_KEYS: variable(
    '',
    parseReadTokenKeys,
    'Keys of end-user read tokens, kid:secret[,kid:secret]: the first signs, every one verifies. Empty: off.',
  ),
  // Every process
  LOG_LEVEL: variable('info', text, 'pino level: trace ... fatal, silent.'),
  FIXED_NOW_MS: variable(
    '',
    optionalInt,
    'Test hook: a fixed server clock (unix ms). Never set in production.',
  ),
  // Ingest worker tuning (Kafka consumer; defaults aim at throughput with large fetches while an idle
  // stream stays fresh: the max wait bounds the wait for min bytes).
  INGEST_CONCURRENCY: variable(
    '4',
    nonNegativeInt,
    "Partitions processed at once (overlaps one batch's Redis round trips with another's CPU).",
  ),
  // A fetch's records of one partition are one batch, and a larger batch merges more events into each counter
  // field and each Lua call: less Redis CPU per event (docs/benchmarks-history.md, "Larger fetches again").
  // Staging keeps every Lua call bounded however large the batch (docs/store-v2.md, "Applies staged in
  // chunks"). The cost is peak RSS (~150 MiB more than 8 MiB fetches).
  INGEST_MAX_BYTES_PER_PARTITION: variable(
    String(32 * 1024 * 1024),
    nonNegativeInt,
    'Bytes fetched per partition and fetch (~160k events at 32 MiB). Less: a smaller worker (peak RSS), more Redis work per event.',
  ),
  INGEST_MAX_BYTES: variable(
    String(64 * 1024 * 1024),
    nonNegativeInt,
    "Bytes per fetch response (the broker's fetch.max.bytes, 55 MiB by default, caps it).",
  ),
  INGEST_MIN_BYTES: variable(
    String(256 * 1024),
    nonNegativeInt,
    'The broker holds a fetch until this much data is there...',
  ),
  INGEST_MAX_WAIT_MS: variable(
    '200',
    nonNegativeInt,
    '...or this long: the bound on added latency at low rates.',
  ),
  INGEST_SESSION_TIMEOUT_MS: variable(
    '30000',
    nonNegativeInt,
    "A dead worker's partitions move after this long.",
  ),
  INGEST_HEARTBEAT_MS: variable('3000', nonNegativeInt, 'Kafka consumer heartbeat interval.'),
  INGEST_REBALANCE_TIMEOUT_MS: variable(
    '30000',
    nonNegativeInt,
    'How long a rebalance waits for members to rejoin.',
  ),
  INGEST_COMMIT_EVERY_MS: variable(
    '5000',
    nonNegativeInt,
    'Kafka offsets are only a hint (Redis holds progress): committed this often.',
  ),
  INGEST_BACKFILL_PAUSE_LAG: variable(
    '100000',
    nonNegativeInt,
    'Live lag (messages, all live partitions of a worker) above which the backfill topic pauses...',
  ),
  INGEST_BACKFILL_RESUME_LAG: variable('20000', nonNegativeInt, '...and below which it resumes.'),
  INGEST_WAIT_REPLICAS: variable(
    '0',
    nonNegativeInt,
    'Replicas that must hold a batch (Redis WAIT, on every master written) before the worker moves past it; 0 = none. Set it on a replicated Redis so that a failover loses no counted batch (docs/deploy.md).',
  ),
  INGEST_WAIT_TIMEOUT_MS: variable(
    '2000',
    positiveInt,
    'How long one WAIT may block; fewer acknowledgements by then fail the batch, which is retried.',
  ),
  INGEST_REDIS_TIMEOUT_MS: variable(
    '10000',
    positiveInt,
    'A Redis command of the worker unanswered this long fails and its batch is retried from the watermark, so that a hung Redis node (a host that stopped answering while its replica took over) holds the worker for about this long instead of for good. Must exceed INGEST_WAIT_TIMEOUT_MS.',
  ),
  // A batch's one Lua call per API blocks Redis while it runs: ~20 ms for a busy API's live batch (10k
  // events, ~40k counter fields), over 100 ms at worst; 12.5 ms for a catch-up batch appending the
  // section parts of hundreds of closed hours. Above this many writes (libs/store staged-chunks.ts
  // WRITES: about one Redis command each) the call stages the hour buckets in Redis with the batch's
  // offset, applied in bounded calls right after (docs/store-v2.md, "Applies staged in chunks";
  // 1,000: calls of 2.4 ms on average for a live batch, at the same throughput).
  INGEST_MAX_WRITES_PER_CALL: variable(
    '1000',
    nonNegativeInt,
    "Writes (about one Redis command each: a counter field, a section part, a bucket's index entries) of one API per Redis script call (0 = no bound); above it the batch's hour buckets are staged in Redis with its offset and applied in bounded calls right after.",
  ),
  INGEST_RETRY_BACKOFF_MS: variable(
    '500',
    nonNegativeInt,
    'Wait after a failed batch (Redis or Kafka down) before it is fetched again.',
  ),
  // Compactor tuning (BullMQ worker; jobs are idempotent, a stalled job simply runs again)
  COMPACTOR_CONCURRENCY: variable('4', positiveInt, 'Jobs (APIs) compacted at once by one process.'),
  COMPACTOR_LOCK_MS: variable(
    '30000',
    positiveInt,
    "Job lock: a killed worker's job is picked up again after about this long.",
  ),
  COMPACTOR_SEALING: variable(
    'on',
    onOff,
    'Seal compacted buckets into packed sections after compaction (docs/store-v2.md): on or off.',
  ),
  COMPACTOR_OPEN_HOUR_SEAL_MS: variable(
    '60000',
    nonNegativeInt,
    'An open hour (one that still takes live writes) whose delta holds many hashes is sealed again at most this often, so that queries ending now read a cached section instead of its whole delta (docs/store-v2.md "Open hours sealed"); 0 = never.',
  ),
  COMPACTOR_MAX_HOURS_PER_JOB: variable(
    '5000',
    positiveInt,
    'A compaction job stops after this many hours; the next tick continues.',
  ),
  // Usage alerts' webhook delivery (docs/alerts.md), run by the compactor process
  ALERTS_ALLOW_PRIVATE_URLS: variable(
    'off',
    onOff,
    'on: webhooks may go to loopback, private (RFC 1918), link-local and unique-local addresses (a receiver inside your network). off: refused.',
  ),
  ALERTS_DELIVERY_TIMEOUT_MS: variable(
    '10000',
    positiveInt,
    'One webhook attempt without a complete answer this long fails (and is retried).',
  ),
  ALERTS_POLL_MS: variable(
    '1000',
    positiveInt,
    'How often new crossings are read and their webhooks queued.',
  ),
  ALERTS_DELIVERY_CONCURRENCY: variable('32', positiveInt, 'Webhooks one process sends at once.'),
  ALERTS_RETRY_BASE_MS: variable(
    '10000',
    positiveInt,
    "Wait after a webhook's first failed attempt; it doubles after every further failure, up to an hour. A webhook gets 33 attempts (about 24.4 hours with this default).",
  ),
  ALERTS_DELIVERY_LOCK_MS: variable(
    '30000',
    positiveInt,
    'Lock of a webhook being sent, renewed while it runs (at least twice ALERTS_DELIVERY_TIMEOUT_MS is used): the webhooks a killed compactor was sending are sent again by another after about this long.',
  ),
  ALERTS_CLAIM_IDLE_MS: variable(
    '60000',
    positiveInt,
    'Crossings a compactor read but had not queued are taken over by another after this long (it died).',
  ),
} satisfies Record<string, Variable<unknown>>;

export type VariableName = keyof typeof ENVIRONMENT;
/** The parsed value of every variable. */
export type Environment = { [N in VariableName]: ReturnType<(typeof ENVIRONMENT)[N]['parse']> };

/** The raw text of a variable: its value when set and not empty, else its default. */
export function rawValue(env: NodeJS.ProcessEnv, name: VariableName): string {
  const raw = env[name];
  if (raw !== undefined && raw !== '') return raw;
  const { fallback } = ENVIRONMENT[name] as Variable<unknown>;
  return typeof fallback === 'string' ? fallback : fallback((other) => rawValue(env, other as VariableName));
}

/** Parses every variable of the table (throws on the first invalid one, naming it). */
export function readEnvironment(env: NodeJS.ProcessEnv): Environment {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(ENVIRONMENT) as VariableName[]) {
    out[name] = (ENVIRONMENT[name] as Variable<unknown>).parse(rawValue(env, name), name);
  }
  return out as Environment;
}

/**
 * Configuration from the environment (CONTRACT §6). One place for every variable
 * and its default, shared by the services, the CLI, the stack scripts and tests.
 */
export interface Config {
  kafkaBrokers: string[];
  /** Live topic of verification events. */
  topic: string;
  /** Dead-letter topic for events that can never be counted. */
  dlqTopic: string;
  /** Topic the backfill CLI writes into; consumed beside the live topic. */
  backfillTopic: string;
  redisUrl: string;
  /** Prefix of every Redis key of the project (tests use their own). */
  keyPrefix: string;
  port: number;
  /** Prometheus /metrics ports of the ingest worker and the compactor (the query service serves its own). */
  ingestMetricsPort: number;
  compactorMetricsPort: number;
  host: string;
  /** Retention per resolution, in milliseconds. */
  retention: { hourMs: number; dayMs: number; monthMs: number };
  /** A closed hour is compacted this long after it ends (room for late events). */
  compactionGraceMs: number;
  /** How often the compactor's scheduler looks for work. */
  compactionEveryMs: number;
  /** Row cap of one query response without a limit that brings it under. */
  maxRows: number;
  /** Base of error.type URIs. */
  docsUrl: string;
  /** Consumer group of the ingest workers. */
  consumerGroup: string;
  logLevel: string;
  /** Base URL of the query service for the CLI's `query` (QUERY_URL; default: this host's PORT). */
  queryUrl: string;
  /** Root key or read token the CLI's `query` sends when --token is not given (ANALYTICS_TOKEN). */
  analyticsToken: string | undefined;
  /**
   * Keys of end-user read tokens (READ_TOKEN_KEYS = `kid:secret[,kid:secret…]`): the first signs new
   * tokens, every one verifies (rotation). Empty: read tokens are off.
   */
  readTokenKeys: { kid: string; secret: string }[];
  /** Test hook: a fixed server clock (unix ms). Unset in production. */
  fixedNowMs: number | undefined;
}

const DAY_MS = 86_400_000;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

const KID = /^[A-Za-z0-9_.-]{1,64}$/;
const MIN_SECRET_BYTES = 32; // HS256 wants a key at least as long as its 256-bit output

/** READ_TOKEN_KEYS: `kid:secret` pairs, comma-separated; a secret may hold `:` but no `,`. */
export function parseReadTokenKeys(raw: string | undefined): { kid: string; secret: string }[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys = raw.split(',').map((pair) => {
    const colon = pair.indexOf(':');
    const kid = pair.slice(0, colon).trim();
    const secret = pair.slice(colon + 1).trim();
    if (colon < 0 || !KID.test(kid)) {
      throw new Error('READ_TOKEN_KEYS must be kid:secret[,kid:secret], kid of 1-64 A-Z a-z 0-9 _ . -');
    }
    if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
      throw new Error(`READ_TOKEN_KEYS: the secret of ${kid} must have at least ${MIN_SECRET_BYTES} bytes`);
    }
    return { kid, secret };
  });
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) throw new Error('READ_TOKEN_KEYS: a kid repeats');
  return keys;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const topic = env.KAFKA_TOPIC || 'key-verifications';
  const fixedNow = env.FIXED_NOW_MS;
  return {
    kafkaBrokers: (env.KAFKA_BROKERS || '127.0.0.1:9092')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    topic,
    dlqTopic: env.KAFKA_DLQ_TOPIC || `${topic}.dlq`,
    backfillTopic: env.KAFKA_BACKFILL_TOPIC || `${topic}.backfill`,
    redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6380',
    keyPrefix: env.REDIS_KEY_PREFIX || 'va',
    port: int(env, 'PORT', 8080),
    ingestMetricsPort: int(env, 'INGEST_METRICS_PORT', 9101),
    compactorMetricsPort: int(env, 'COMPACTOR_METRICS_PORT', 9102),
    host: env.HOST || '0.0.0.0',
    retention: {
      hourMs: int(env, 'RETENTION_HOURS_DAYS', 35) * DAY_MS,
      dayMs: int(env, 'RETENTION_DAYS_DAYS', 400) * DAY_MS,
      monthMs: int(env, 'RETENTION_MONTHS_DAYS', 5 * 366) * DAY_MS,
    },
    compactionGraceMs: int(env, 'COMPACTION_GRACE_MS', 5 * 60_000),
    compactionEveryMs: int(env, 'COMPACTION_EVERY_MS', 30_000),
    maxRows: int(env, 'MAX_ROWS', 100_000),
    docsUrl: (env.DOCS_URL || 'https://docs.verification-analytics.dev/errors').replace(/\/+$/, ''),
    consumerGroup: env.KAFKA_GROUP || 'verification-ingest',
    logLevel: env.LOG_LEVEL || 'info',
    fixedNowMs: fixedNow ? Number(fixedNow) : undefined,
    queryUrl: env.QUERY_URL || `http://127.0.0.1:${int(env, 'PORT', 8080)}`,
    analyticsToken: env.ANALYTICS_TOKEN || undefined,
    readTokenKeys: parseReadTokenKeys(env.READ_TOKEN_KEYS),
  };
}

/** The server clock: real time, or the fixed test clock. */
export function clockOf(config: Pick<Config, 'fixedNowMs'>): () => number {
  const fixed = config.fixedNowMs;
  return fixed === undefined ? () => Date.now() : () => fixed;
}

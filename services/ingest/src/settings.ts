/**
 * Tuning of the ingest worker's Kafka consumer. Defaults aim at throughput with large fetches
 * while keeping an idle stream fresh (maxWaitTimeInMs bounds the wait for minBytes). Each can be
 * overridden from the environment (names beside the fields); tests shorten the session timeout
 * so that a SIGKILLed worker's partitions move quickly.
 */
export interface IngestSettings {
  /** INGEST_CONCURRENCY: partitions processed at once (overlaps one batch's Redis round trips with another's CPU). */
  partitionsConsumedConcurrently: number;
  /** INGEST_MAX_BYTES_PER_PARTITION: bytes fetched per partition and fetch (~40k events at 8 MB). */
  maxBytesPerPartition: number;
  /** INGEST_MAX_BYTES: bytes per fetch response. */
  maxBytes: number;
  /** INGEST_MIN_BYTES: the broker holds a fetch until this much data is there... */
  minBytes: number;
  /** INGEST_MAX_WAIT_MS: ...or this long: the bound on added latency at low rates. */
  maxWaitTimeInMs: number;
  /** INGEST_SESSION_TIMEOUT_MS: a dead worker's partitions move after this long. */
  sessionTimeout: number;
  /** INGEST_HEARTBEAT_MS */
  heartbeatInterval: number;
  /** INGEST_REBALANCE_TIMEOUT_MS: how long a rebalance waits for members to rejoin. */
  rebalanceTimeout: number;
  /** INGEST_COMMIT_EVERY_MS: Kafka offsets are only a hint (Redis holds progress); commit now and then. */
  commitEveryMs: number;
  /** INGEST_BACKFILL_PAUSE_LAG: live lag (messages, all live partitions of this worker) above which backfill pauses. */
  backfillPauseLag: number;
  /** INGEST_BACKFILL_RESUME_LAG: ...and below which it resumes. */
  backfillResumeLag: number;
  /** INGEST_RETRY_BACKOFF_MS: wait after a failed batch (Redis or Kafka down) before it is fetched again. */
  retryBackoffMs: number;
}

export const DEFAULT_INGEST_SETTINGS: IngestSettings = {
  partitionsConsumedConcurrently: 4,
  maxBytesPerPartition: 8 * 1024 * 1024,
  maxBytes: 40 * 1024 * 1024,
  minBytes: 256 * 1024,
  maxWaitTimeInMs: 200,
  sessionTimeout: 30_000,
  heartbeatInterval: 3_000,
  rebalanceTimeout: 30_000,
  commitEveryMs: 5_000,
  backfillPauseLag: 100_000,
  backfillResumeLag: 20_000,
  retryBackoffMs: 500,
};

const ENV: Record<keyof IngestSettings, string> = {
  partitionsConsumedConcurrently: 'INGEST_CONCURRENCY',
  maxBytesPerPartition: 'INGEST_MAX_BYTES_PER_PARTITION',
  maxBytes: 'INGEST_MAX_BYTES',
  minBytes: 'INGEST_MIN_BYTES',
  maxWaitTimeInMs: 'INGEST_MAX_WAIT_MS',
  sessionTimeout: 'INGEST_SESSION_TIMEOUT_MS',
  heartbeatInterval: 'INGEST_HEARTBEAT_MS',
  rebalanceTimeout: 'INGEST_REBALANCE_TIMEOUT_MS',
  commitEveryMs: 'INGEST_COMMIT_EVERY_MS',
  backfillPauseLag: 'INGEST_BACKFILL_PAUSE_LAG',
  backfillResumeLag: 'INGEST_BACKFILL_RESUME_LAG',
  retryBackoffMs: 'INGEST_RETRY_BACKOFF_MS',
};

export function loadIngestSettings(env: NodeJS.ProcessEnv = process.env): IngestSettings {
  const settings = { ...DEFAULT_INGEST_SETTINGS };
  for (const name of Object.keys(ENV) as (keyof IngestSettings)[]) {
    const raw = env[ENV[name]];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`${ENV[name]} must be a non-negative integer`);
    settings[name] = value;
  }
  return settings;
}

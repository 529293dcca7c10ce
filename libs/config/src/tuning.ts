/**
 * Tuning of the ingest worker's Kafka consumer and of the compactor's BullMQ worker, read from the
 * environment table (environment.ts: INGEST_* and COMPACTOR_*, with their defaults and meaning).
 * Tests shorten the session timeout so that a SIGKILLed worker's partitions move quickly.
 */
import { readEnvironment } from './environment';

export interface IngestSettings {
  /** INGEST_CONCURRENCY */
  partitionsConsumedConcurrently: number;
  /** INGEST_MAX_BYTES_PER_PARTITION */
  maxBytesPerPartition: number;
  /** INGEST_MAX_BYTES */
  maxBytes: number;
  /** INGEST_MIN_BYTES */
  minBytes: number;
  /** INGEST_MAX_WAIT_MS */
  maxWaitTimeInMs: number;
  /** INGEST_SESSION_TIMEOUT_MS */
  sessionTimeout: number;
  /** INGEST_HEARTBEAT_MS */
  heartbeatInterval: number;
  /** INGEST_REBALANCE_TIMEOUT_MS */
  rebalanceTimeout: number;
  /** INGEST_COMMIT_EVERY_MS */
  commitEveryMs: number;
  /** INGEST_BACKFILL_PAUSE_LAG */
  backfillPauseLag: number;
  /** INGEST_BACKFILL_RESUME_LAG */
  backfillResumeLag: number;
  /** INGEST_RETRY_BACKOFF_MS */
  retryBackoffMs: number;
  /** INGEST_MAX_WRITES_PER_CALL (0 = no bound) */
  maxWritesPerCall: number;
  /** INGEST_WAIT_REPLICAS */
  waitReplicas: number;
  /** INGEST_WAIT_TIMEOUT_MS */
  waitTimeoutMs: number;
  /** INGEST_REDIS_TIMEOUT_MS: ioredis `commandTimeout` of the worker's connection */
  redisTimeoutMs: number;
}

export interface CompactorSettings {
  /** COMPACTOR_CONCURRENCY */
  concurrency: number;
  /** COMPACTOR_LOCK_MS */
  lockDurationMs: number;
  /** COMPACTOR_MAX_HOURS_PER_JOB */
  maxHoursPerJob: number;
  /** COMPACTOR_SEALING */
  sealing: boolean;
  /** COMPACTOR_OPEN_HOUR_SEAL_MS (0: open hours are never sealed) */
  openHourSealMs: number;
}

export function loadIngestSettings(env: NodeJS.ProcessEnv = process.env): IngestSettings {
  const e = readEnvironment(env);
  // A WAIT blocks for up to its timeout: a command timeout below it would fail every waiting batch.
  if (e.INGEST_REDIS_TIMEOUT_MS <= e.INGEST_WAIT_TIMEOUT_MS) {
    throw new Error(
      `INGEST_REDIS_TIMEOUT_MS (${e.INGEST_REDIS_TIMEOUT_MS}) must exceed INGEST_WAIT_TIMEOUT_MS (${e.INGEST_WAIT_TIMEOUT_MS})`,
    );
  }
  return {
    partitionsConsumedConcurrently: e.INGEST_CONCURRENCY,
    maxBytesPerPartition: e.INGEST_MAX_BYTES_PER_PARTITION,
    maxBytes: e.INGEST_MAX_BYTES,
    minBytes: e.INGEST_MIN_BYTES,
    maxWaitTimeInMs: e.INGEST_MAX_WAIT_MS,
    sessionTimeout: e.INGEST_SESSION_TIMEOUT_MS,
    heartbeatInterval: e.INGEST_HEARTBEAT_MS,
    rebalanceTimeout: e.INGEST_REBALANCE_TIMEOUT_MS,
    commitEveryMs: e.INGEST_COMMIT_EVERY_MS,
    backfillPauseLag: e.INGEST_BACKFILL_PAUSE_LAG,
    backfillResumeLag: e.INGEST_BACKFILL_RESUME_LAG,
    retryBackoffMs: e.INGEST_RETRY_BACKOFF_MS,
    maxWritesPerCall: e.INGEST_MAX_WRITES_PER_CALL,
    waitReplicas: e.INGEST_WAIT_REPLICAS,
    waitTimeoutMs: e.INGEST_WAIT_TIMEOUT_MS,
    redisTimeoutMs: e.INGEST_REDIS_TIMEOUT_MS,
  };
}

export function loadCompactorSettings(env: NodeJS.ProcessEnv = process.env): CompactorSettings {
  const e = readEnvironment(env);
  return {
    concurrency: e.COMPACTOR_CONCURRENCY,
    lockDurationMs: e.COMPACTOR_LOCK_MS,
    maxHoursPerJob: e.COMPACTOR_MAX_HOURS_PER_JOB,
    sealing: e.COMPACTOR_SEALING,
    openHourSealMs: e.COMPACTOR_OPEN_HOUR_SEAL_MS,
  };
}

/** The table's defaults (an empty environment). */
export const DEFAULT_INGEST_SETTINGS: IngestSettings = loadIngestSettings({});
export const DEFAULT_COMPACTOR_SETTINGS: CompactorSettings = loadCompactorSettings({});

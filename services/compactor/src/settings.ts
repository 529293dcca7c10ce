/**
 * Tuning of the compactor's BullMQ worker, each overridable from the environment (names beside
 * the fields). Compaction jobs are idempotent, so a stalled job is simply run again: the lock
 * only bounds how long a killed worker's job waits before another worker takes it over.
 */
export interface CompactorSettings {
  /** COMPACTOR_CONCURRENCY: jobs (APIs) compacted at once by one process. */
  concurrency: number;
  /** COMPACTOR_LOCK_MS: job lock; a killed worker's job is picked up again after about this long. */
  lockDurationMs: number;
  /** COMPACTOR_MAX_HOURS_PER_JOB: a job stops after this many hours; the next tick continues. */
  maxHoursPerJob: number;
}

export const DEFAULT_COMPACTOR_SETTINGS: CompactorSettings = {
  concurrency: 4,
  lockDurationMs: 30_000,
  maxHoursPerJob: 5_000,
};

const ENV: Record<keyof CompactorSettings, string> = {
  concurrency: 'COMPACTOR_CONCURRENCY',
  lockDurationMs: 'COMPACTOR_LOCK_MS',
  maxHoursPerJob: 'COMPACTOR_MAX_HOURS_PER_JOB',
};

export function loadCompactorSettings(env: NodeJS.ProcessEnv = process.env): CompactorSettings {
  const settings = { ...DEFAULT_COMPACTOR_SETTINGS };
  for (const name of Object.keys(ENV) as (keyof CompactorSettings)[]) {
    const raw = env[ENV[name]];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${ENV[name]} must be a positive integer`);
    settings[name] = value;
  }
  return settings;
}

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_COMPACTOR_SETTINGS,
  DEFAULT_INGEST_SETTINGS,
  loadCompactorSettings,
  loadIngestSettings,
} from './tuning';

describe('loadIngestSettings', () => {
  it('defaults, and reads overrides from the environment', () => {
    expect(loadIngestSettings({})).toEqual(DEFAULT_INGEST_SETTINGS);
    expect(DEFAULT_INGEST_SETTINGS.maxBytesPerPartition).toBe(32 * 1024 * 1024);
    const s = loadIngestSettings({ INGEST_SESSION_TIMEOUT_MS: '6000', INGEST_CONCURRENCY: '2' });
    expect(s.sessionTimeout).toBe(6000);
    expect(s.partitionsConsumedConcurrently).toBe(2);
  });

  it('refuses nonsense', () => {
    expect(() => loadIngestSettings({ INGEST_MAX_BYTES: '-1' })).toThrow(/INGEST_MAX_BYTES/);
    expect(() => loadIngestSettings({ INGEST_MAX_WAIT_MS: 'soon' })).toThrow(/INGEST_MAX_WAIT_MS/);
  });

  it('refuses a Redis command timeout that a WAIT could reach', () => {
    expect(DEFAULT_INGEST_SETTINGS.redisTimeoutMs).toBe(10_000);
    expect(() => loadIngestSettings({ INGEST_REDIS_TIMEOUT_MS: '2000' })).toThrow(
      /INGEST_REDIS_TIMEOUT_MS \(2000\) must exceed INGEST_WAIT_TIMEOUT_MS \(2000\)/,
    );
    const s = loadIngestSettings({ INGEST_REDIS_TIMEOUT_MS: '1500', INGEST_WAIT_TIMEOUT_MS: '1000' });
    expect(s.redisTimeoutMs).toBe(1_500);
  });
});

describe('loadCompactorSettings', () => {
  it('defaults, overrides, and refuses zero', () => {
    expect(DEFAULT_COMPACTOR_SETTINGS).toEqual({
      concurrency: 4,
      lockDurationMs: 30_000,
      maxHoursPerJob: 5_000,
      sealing: true,
      openHourSealMs: 60_000,
    });
    expect(loadCompactorSettings({ COMPACTOR_CONCURRENCY: '1' }).concurrency).toBe(1);
    expect(loadCompactorSettings({ COMPACTOR_OPEN_HOUR_SEAL_MS: '0' }).openHourSealMs).toBe(0);
    expect(() => loadCompactorSettings({ COMPACTOR_LOCK_MS: '0' })).toThrow(/COMPACTOR_LOCK_MS/);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_SETTINGS, loadIngestSettings } from './settings';

describe('loadIngestSettings', () => {
  it('defaults, and reads overrides from the environment', () => {
    expect(loadIngestSettings({})).toEqual(DEFAULT_INGEST_SETTINGS);
    const s = loadIngestSettings({ INGEST_SESSION_TIMEOUT_MS: '6000', INGEST_CONCURRENCY: '2' });
    expect(s.sessionTimeout).toBe(6000);
    expect(s.partitionsConsumedConcurrently).toBe(2);
  });

  it('refuses nonsense', () => {
    expect(() => loadIngestSettings({ INGEST_MAX_BYTES: '-1' })).toThrow(/INGEST_MAX_BYTES/);
    expect(() => loadIngestSettings({ INGEST_MAX_WAIT_MS: 'soon' })).toThrow(/INGEST_MAX_WAIT_MS/);
  });
});

import { describe, expect, it } from 'vitest';
import { querySettings, querySettingsEnv, rootKeyPoolSize } from './query-env';

describe('querySettings (#40: the services as `npm start` starts them)', () => {
  it('by default: the shipped limits and log level, or the operator’s own values', () => {
    expect(querySettings(true, {})).toEqual({
      rateLimit: 300,
      rateWindowMs: 1000,
      maxConcurrent: 4,
      logLevel: 'info',
    });
    expect(querySettings(true, { QUERY_MAX_CONCURRENT: '8', LOG_LEVEL: 'debug' })).toMatchObject({
      maxConcurrent: 8,
      logLevel: 'debug',
    });
  });

  it('--no-limits: both limits off, warnings only, whatever the environment says', () => {
    const s = querySettings(false, { QUERY_RATE_LIMIT: '5', QUERY_MAX_CONCURRENT: '1' });
    expect(querySettingsEnv(s)).toEqual({
      QUERY_RATE_LIMIT: '0',
      QUERY_RATE_WINDOW_MS: '1000',
      QUERY_MAX_CONCURRENT: '0',
      LOG_LEVEL: 'warn',
    });
  });
});

describe('rootKeyPoolSize', () => {
  it('keeps every key under half its rate limit and under its concurrency limit', () => {
    const shipped = querySettings(true, {});
    const size = rootKeyPoolSize(shipped, 10, 10_000);
    expect(10_000 / size).toBeLessThanOrEqual(150);
    expect(Math.ceil(10 / size)).toBeLessThanOrEqual(shipped.maxConcurrent);
    expect(rootKeyPoolSize({ ...shipped, rateLimit: 0, maxConcurrent: 1 }, 10)).toBe(20);
    expect(rootKeyPoolSize(querySettings(false, {}), 10)).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { attemptsFor, DELIVERY_ATTEMPTS, deliveryBackoffMs, RETRY_SPAN_MS, retrySpanMs } from './backoff';

describe('the retry schedule', () => {
  it('doubles from 10 s up to an hour, then stays at an hour', () => {
    expect([1, 2, 3, 9, 10, 11, 32].map((n) => deliveryBackoffMs(n) / 1000)).toEqual([
      10, 20, 40, 2560, 3600, 3600, 3600,
    ]);
  });

  it('retries for at least 24 hours, and not an attempt more than that needs', () => {
    expect(DELIVERY_ATTEMPTS).toBe(33);
    expect(retrySpanMs(DELIVERY_ATTEMPTS)).toBeGreaterThanOrEqual(RETRY_SPAN_MS);
    expect(retrySpanMs(DELIVERY_ATTEMPTS - 1)).toBeLessThan(RETRY_SPAN_MS);
    expect(retrySpanMs(DELIVERY_ATTEMPTS) / 3_600_000).toBeCloseTo(24.42, 2);
  });

  it('takes other settings (the tests shorten the waits)', () => {
    const fast = { baseMs: 100, capMs: 400 };
    expect([1, 2, 3, 4].map((n) => deliveryBackoffMs(n, fast))).toEqual([100, 200, 400, 400]);
    expect(attemptsFor(1000, fast)).toBe(5); // 100 + 200 + 400 + 400
  });
});

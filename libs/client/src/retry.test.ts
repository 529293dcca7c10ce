import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, type RetryInput } from './retry';

const NOW = Date.UTC(2026, 0, 1, 12);

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 3 ', NOW)).toBe(3000);
    expect(parseRetryAfter(new Date(NOW + 7000).toUTCString(), NOW)).toBe(7000);
    expect(parseRetryAfter(new Date(NOW - 7000).toUTCString(), NOW)).toBe(0); // already past
  });

  it('ignores what is neither', () => {
    for (const value of [null, undefined, '', '-1', '1.5', 'soon', '3s']) {
      expect(parseRetryAfter(value, NOW), String(value)).toBeUndefined();
    }
  });
});

describe('retryDelay', () => {
  const input = (over: Partial<RetryInput>): RetryInput => ({
    attempt: 1,
    failure: { kind: 'status', status: 503, retryAfterMs: undefined },
    options: DEFAULT_RETRY,
    remainingMs: undefined,
    random: () => 0.5,
    ...over,
  });

  it('waits as long as Retry-After says on 429 and 503', () => {
    for (const status of [429, 503]) {
      expect(retryDelay(input({ failure: { kind: 'status', status, retryAfterMs: 2000 } }))).toBe(2000);
    }
  });

  it('never retries other statuses', () => {
    for (const status of [400, 401, 403, 404, 500, 502, 504]) {
      expect(
        retryDelay(input({ failure: { kind: 'status', status, retryAfterMs: 1000 } })),
        String(status),
      ).toBe(null);
    }
  });

  it('backs off exponentially with jitter between half and all of the cap', () => {
    const at = (attempt: number, r: number) =>
      retryDelay(input({ attempt, random: () => r, options: { ...DEFAULT_RETRY, maxAttempts: 10 } }));
    expect([at(1, 0), at(1, 0.999999)]).toEqual([100, 200]);
    expect([at(2, 0), at(2, 0.5)]).toEqual([200, 300]);
    expect([at(3, 0), at(3, 0.999999)]).toEqual([400, 800]);
    expect(at(9, 0.999999)).toBe(5000); // capped by maxDelayMs
    expect(retryDelay(input({ failure: { kind: 'network' } }))).toBe(150);
  });

  it('stops after maxAttempts', () => {
    expect(retryDelay(input({ attempt: 2 }))).not.toBeNull();
    expect(retryDelay(input({ attempt: 3 }))).toBeNull();
    expect(retryDelay(input({ attempt: 1, options: { ...DEFAULT_RETRY, maxAttempts: 1 } }))).toBeNull();
  });

  it('does not wait for a Retry-After beyond maxRetryAfterMs or past the deadline', () => {
    const failure = { kind: 'status', status: 429, retryAfterMs: 31_000 } as const;
    expect(retryDelay(input({ failure }))).toBeNull();
    expect(retryDelay(input({ failure: { ...failure, retryAfterMs: 30_000 } }))).toBe(30_000);
    expect(retryDelay(input({ failure: { ...failure, retryAfterMs: 2000 }, remainingMs: 2000 }))).toBeNull();
    expect(retryDelay(input({ failure: { ...failure, retryAfterMs: 2000 }, remainingMs: 2001 }))).toBe(2000);
  });
});

/**
 * When to send an idempotent request again, and after how long. Pure: the caller passes the
 * clock's time and a random source.
 *
 * - Retried: 429 and 503 answers, and network failures (no answer at all). Never other statuses:
 *   a 4xx will not change, a 500 is a bug to report, not to hammer.
 * - Wait: the answer's Retry-After when it has one (seconds or an HTTP date); otherwise exponential
 *   backoff with jitter, so that many clients turned away together do not come back together.
 * - Bounded: at most `maxAttempts` requests per call; a Retry-After longer than `maxRetryAfterMs`
 *   or a wait past the call's deadline is not waited for: the error is thrown at once.
 */
export interface RetryOptions {
  /** Requests per call, the first included. 1 turns retries off. */
  maxAttempts: number;
  /** Backoff before retry n (1-based): between half and all of min(maxDelayMs, baseDelayMs · 2^(n-1)). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest Retry-After the client waits for. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

export const RETRY_STATUSES: readonly number[] = [429, 503];

/** Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP date → milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // a negative or fractional number is not a date either
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type FailedAttempt =
  { kind: 'status'; status: number; retryAfterMs: number | undefined } | { kind: 'network' };

export interface RetryInput {
  /** The attempt that just failed, 1-based. */
  attempt: number;
  failure: FailedAttempt;
  options: RetryOptions;
  /** Milliseconds left before the call's deadline; undefined without a timeout. */
  remainingMs: number | undefined;
  /** Uniform in [0, 1). */
  random: () => number;
}

/** The wait before the next attempt, or null to give up and throw this attempt's error. */
export function retryDelay(input: RetryInput): number | null {
  const { attempt, failure, options } = input;
  if (attempt >= options.maxAttempts) return null;
  if (failure.kind === 'status' && !RETRY_STATUSES.includes(failure.status)) return null;
  let delay: number;
  if (failure.kind === 'status' && failure.retryAfterMs !== undefined) {
    if (failure.retryAfterMs > options.maxRetryAfterMs) return null;
    delay = failure.retryAfterMs;
  } else {
    const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
    delay = Math.round(cap / 2 + (input.random() * cap) / 2);
  }
  if (input.remainingMs !== undefined && delay >= input.remainingMs) return null;
  return delay;
}

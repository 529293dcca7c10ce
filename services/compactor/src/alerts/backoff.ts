/**
 * The retry schedule of a webhook (docs/alerts.md "Retries"). Pure. The wait after the n-th failed attempt
 * doubles from BASE up to CAP and stays there; DELIVERY_ATTEMPTS is the fewest attempts whose waits add up
 * to at least RETRY_SPAN, so a receiver that is down for a day still gets the webhook when it is back.
 */
export interface BackoffSettings {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 10_000, capMs: 3_600_000 };
export const RETRY_SPAN_MS = 24 * 3_600_000;

/** Wait before the next attempt, after `attemptsMade` attempts failed (1 after the first). */
export function deliveryBackoffMs(attemptsMade: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  const exponent = Math.min(Math.max(attemptsMade - 1, 0), 40);
  return Math.min(settings.baseMs * 2 ** exponent, settings.capMs);
}

/** Sum of the waits between the first and the last of `attempts` attempts. */
export function retrySpanMs(attempts: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  let sum = 0;
  for (let made = 1; made < attempts; made++) sum += deliveryBackoffMs(made, settings);
  return sum;
}

/** The fewest attempts whose retries span at least `spanMs`. */
export function attemptsFor(spanMs: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  let attempts = 1;
  while (retrySpanMs(attempts, settings) < spanMs) attempts++;
  return attempts;
}

/** 33 with the defaults: 10 s, 20 s, … 2560 s, then 23 waits of an hour (about 24.4 h in all). */
export const DELIVERY_ATTEMPTS = attemptsFor(RETRY_SPAN_MS);

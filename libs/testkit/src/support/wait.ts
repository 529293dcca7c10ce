import { setTimeout as sleep } from 'node:timers/promises';
import { scaled } from './time.js';

export interface WaitOptions {
  /** A budget for the awaited work, multiplied by TEST_TIME_SCALE (time.ts). Default 60 s. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Says what was awaited, for the timeout error. */
  message?: string;
}

/**
 * Polls predicate until it returns a truthy value (which is returned) or the time is up.
 * Errors thrown by the predicate count as "not yet"; the last one is reported on timeout.
 * The wait ends as soon as the predicate holds, so a generous budget costs a passing test nothing.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  { timeoutMs: budgetMs = 60_000, intervalMs = 100, message = 'condition' }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = scaled(budgetMs);
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `: last error: ${lastError.message}` : '';
      throw new Error(`waitFor: ${message} not met after ${timeoutMs} ms${cause}`);
    }
    await sleep(intervalMs);
  }
}

/** Settings and data that several of the query service's integration tests start from. */
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';

/**
 * Retention long enough to keep fixed past dates at hour precision, also against the real clock
 * (Redis expires keys by PEXPIREAT).
 */
export const LONG_RETENTION = {
  RETENTION_HOURS_DAYS: '36500',
  RETENTION_DAYS_DAYS: '36500',
  RETENTION_MONTHS_DAYS: '36500',
} as const;

/**
 * An event every 20 minutes (a few seconds into the slot) from `first` to an hour before `now`, of
 * workspace ws_1, over three keys and every outcome in turn: a series with a count in every hour.
 */
export function eventEvery20Minutes(apiId: string, first: number, now: number): VerificationEvent[] {
  const events: VerificationEvent[] = [];
  for (let t = first, n = 0; t < now - HOUR_MS; t += 20 * 60_000, n++) {
    events.push({
      requestId: `r${n}`,
      time: t + (n % 7) * 1000,
      workspaceId: 'ws_1',
      apiId,
      keyId: `key_${n % 3}`,
      outcome: OUTCOMES[n % OUTCOMES.length]!,
    });
  }
  return events;
}

/**
 * The identity of a crossing (docs/alerts.md "Crossings"): a pure function of the rule, the scope member,
 * the period and the level, so that a replay of the events, a retried batch or a rebuild finds the same
 * id for the same crossing and can never mint a second one. The detection (the ingest worker's apply)
 * and the delivery (webhook-id) both call this one function.
 */
import { createHash } from 'node:crypto';
import type { AlertPeriod } from '@va/contracts';
import { firstHourOfSlice, sliceIndexAt, sliceIndexOfHour, sliceStartOf } from '../calendar';

/** First 24 hex digits (96 bits) of SHA-256 over `ruleId|member|periodStart|level`. */
export function alertId(ruleId: string, member: string, periodStart: number, level: number): string {
  return createHash('sha256')
    .update(`${ruleId}|${member}|${periodStart}|${level}`)
    .digest('hex')
    .slice(0, 24);
}

/**
 * Unix ms of the start of the day or calendar month that holds `timeMs`, in `zone` (a rule's time zone;
 * absent: UTC), on the calendar of the query slices (libs/core calendar.ts: local midnight, 23- and 25-hour
 * days where DST changes).
 */
export function alertPeriodStart(period: AlertPeriod, timeMs: number, zone?: string): number {
  return sliceStartOf(sliceIndexAt(timeMs, period, zone), period, zone);
}

/**
 * The period of `zone` that counts the events of UTC hour `h`: the one holding the hour's start, as a query's
 * day and month slices count hours (counts are kept per UTC hour). Where a local midnight falls inside a UTC
 * hour (offsets such as +05:30), that whole hour counts in the earlier period. `lastHour` is the period's
 * last hour counted that way.
 */
export function alertPeriodOfHour(
  period: AlertPeriod,
  h: number,
  zone?: string,
): { start: number; lastHour: number } {
  const i = sliceIndexOfHour(h, period, zone);
  return { start: sliceStartOf(i, period, zone), lastHour: firstHourOfSlice(i + 1, period, zone) - 1 };
}

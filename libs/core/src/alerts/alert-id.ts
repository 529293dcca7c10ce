/**
 * The identity of a crossing (docs/alerts.md "Crossings"): a pure function of the rule, the scope member,
 * the period and the level, so that a replay of the events, a retried batch or a rebuild finds the same
 * id for the same crossing and can never mint a second one. The detection (the ingest worker's apply)
 * and the delivery (webhook-id) both call this one function.
 */
import { createHash } from 'node:crypto';
import type { AlertPeriod } from '@va/contracts';
import { dayOf, dayStart, monthOf, monthStart } from '../time';

/** First 24 hex digits (96 bits) of SHA-256 over `ruleId|member|periodStart|level`. */
export function alertId(ruleId: string, member: string, periodStart: number, level: number): string {
  return createHash('sha256')
    .update(`${ruleId}|${member}|${periodStart}|${level}`)
    .digest('hex')
    .slice(0, 24);
}

/** Unix ms of the start of the UTC day or calendar month that holds `timeMs` (the calendar of the query slices). */
export function alertPeriodStart(period: AlertPeriod, timeMs: number): number {
  return period === 'day' ? dayStart(dayOf(timeMs)) : monthStart(monthOf(timeMs));
}

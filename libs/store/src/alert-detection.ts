/**
 * What applyApiBatch needs to detect a batch's crossings (docs/alerts.md "Detection"), built by the
 * ingest worker's pure core and written by the script in the same atomic step as the counts.
 *
 * Rules that count the same thing (scope, outcomes, tags, period: libs/core alertCounterId) share one
 * counter per period: a hash `<p>:g<g>:{a}:alerts:n:<counterId>:<periodStart>`, member -> count, so a
 * batch costs one HINCRBY per counter and scope member however many rules share it. HINCRBY answers the
 * new count; every level L with old < L <= new is crossed, for each rule with that level. A crossing is
 * appended to the API's crossings stream only when it joins the API's set of recorded crossings of the
 * period (`<p>:{a}:alerts:x:<period>:<periodStart>`, member `ruleId|level|member`, not generation-scoped),
 * so that a replayed batch, a retry or a rebuild (which counts into a new generation from zero) never
 * appends a crossing twice. Counters and sets expire when no event of their period can be counted any
 * more (keepUntilOfHour of the period's last hour).
 */
import type { AlertPeriod } from '@va/contracts';
import { WRITES } from './staged-chunks';

/** One level of a counter's rules, and the rules that have it. */
export interface AlertLevel {
  level: number;
  ruleIds: readonly string[];
}

/** One counter's increments of a batch: what its rules count, in one period. */
export interface AlertCounterIncrements {
  counterId: string;
  period: AlertPeriod;
  /** Unix ms of the period's start (libs/core alertPeriodStart). */
  periodStart: number;
  /** Unix ms at which the counter and the period's recorded crossings may go. */
  expireAt: number;
  /** The levels of the rules sharing the counter, ascending and distinct. */
  levels: readonly AlertLevel[];
  /** scope member ('' for a whole-API rule) -> increment (> 0) */
  members: ReadonlyMap<string, number>;
}

export interface AlertIncrements {
  /** The version of the rules these were computed with: the script refuses another (status `rules`). */
  rulesVersion: number;
  /** The batch's clock: detectedAt of the crossings. */
  now: number;
  counters: readonly AlertCounterIncrements[];
}

/**
 * The writes (staged-chunks.ts WRITES) the alert counters add to a call: a HINCRBY per member and the
 * two expiries of each counter. Crossings are rare (at most one per level, member and period) and not
 * counted. These writes are never staged: they are the call's, with its offset.
 */
export function alertWrites(alerts: AlertIncrements | undefined): number {
  if (!alerts) return 0;
  let n = 0;
  for (const c of alerts.counters) n += 2 * WRITES.cube + c.members.size * WRITES.field;
  return n;
}

/**
 * The crossings a set of events must produce (docs/alerts.md "Crossings"), computed the simplest way,
 * for tests: per rule, count the matching events of each scope member and period, and every level that
 * count reaches is one crossing. Counts only grow, so the set does not depend on the order the events
 * arrived in (which moment a level was reached does; the set of levels reached does not).
 *
 * Periods follow the rule's time zone (absent: UTC). Counts are kept per UTC hour, so an event counts in the
 * period holding the start of its UTC hour, as a query's day and month slices count it: in a zone whose
 * offset is not a whole hour (+05:30), the events of the hour a local midnight falls into count in the
 * earlier period.
 */
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { hourOf, hourStart } from '../time';
import { alertId, alertPeriodStart } from './alert-id';

export interface ExpectedCrossing {
  alertId: string;
  ruleId: string;
  member: string;
  periodStart: number;
  level: number;
}

/** The scope member an event counts for under a rule, or undefined when it does not count. */
export function memberOf(rule: AlertRule, e: VerificationEvent): string | undefined {
  if (e.apiId !== rule.apiId) return undefined;
  if (rule.outcomes !== undefined && !rule.outcomes.includes(e.outcome)) return undefined;
  if (rule.tags !== undefined && !rule.tags.every((tag) => e.tags?.includes(tag))) return undefined;
  const scope = rule.scope;
  switch (scope.kind) {
    case 'api':
      return '';
    case 'key':
      return e.keyId === scope.keyId ? e.keyId : undefined;
    case 'eachKey':
      return e.keyId;
    case 'identity':
      return e.identity?.externalId === scope.externalId ? scope.externalId : undefined;
    case 'eachIdentity':
      return e.identity?.externalId;
  }
}

/** Every crossing the events reach under the rules, by alert id. */
export function expectedCrossings(
  rules: readonly AlertRule[],
  events: Iterable<VerificationEvent>,
): Map<string, ExpectedCrossing> {
  /** ruleId|member|periodStart -> count */
  const counts = new Map<string, { rule: AlertRule; member: string; periodStart: number; n: number }>();
  for (const e of events) {
    for (const rule of rules) {
      const member = memberOf(rule, e);
      if (member === undefined) continue;
      const periodStart = alertPeriodStart(rule.period, hourStart(hourOf(e.time)), rule.timeZone);
      const id = `${rule.ruleId}|${member}|${periodStart}`;
      const count = counts.get(id);
      if (count) count.n++;
      else counts.set(id, { rule, member, periodStart, n: 1 });
    }
  }
  const out = new Map<string, ExpectedCrossing>();
  for (const { rule, member, periodStart, n } of counts.values()) {
    for (const level of rule.levels) {
      if (n < level) continue;
      const id = alertId(rule.ruleId, member, periodStart, level);
      out.set(id, { alertId: id, ruleId: rule.ruleId, member, periodStart, level });
    }
  }
  return out;
}

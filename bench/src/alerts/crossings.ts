/**
 * Which produced event makes each crossing, and when it was sent (docs/alerts.md "Crossings"). The events
 * are counted as they are sent, per counted definition (libs/core alertCounterId), scope member and period,
 * in send order, which is the order the ingest worker counts them in: the message key is the API, so an
 * API's events keep their order in one partition, and every rule counts one API. The event that takes a
 * count to a level crosses it, for every rule of that counter with the level. The set of crossings is the
 * oracle's (libs/core expectedCrossings; crossings.test.ts holds the two together); the send time is what
 * this adds, for crossing-to-webhook latency.
 */
import type { AlertPeriod, AlertRule, VerificationEvent } from '@va/contracts';
import { alertCounterId, alertId, alertPeriodStart, hourOf, hourStart, memberOf } from '@va/core';

export interface TimedCrossing {
  alertId: string;
  ruleId: string;
  member: string;
  periodStart: number;
  level: number;
  /** Unix ms at which the crossing event was sent (just before the send of its batch). */
  sentAt: number;
}

interface Counter {
  /** `<apiId>|<counterId>` */
  id: string;
  /** Any rule of the counter: they all count the same members of the same events. */
  rule: AlertRule;
  /** level -> the ids of the counter's rules with that level */
  rulesAt: Map<number, string[]>;
  /** periodStart -> member -> count */
  counts: Map<number, Map<string, number>>;
}

export class CrossingClock {
  private readonly countersOf = new Map<string, Counter[]>();
  /** By alert id, in the order they were crossed. */
  readonly crossings = new Map<string, TimedCrossing>();
  /** The period of the last hour asked, per period kind and zone: live events come hour after hour. */
  private readonly lastPeriod = new Map<string, { hour: number; start: number }>();

  constructor(rules: readonly AlertRule[]) {
    const byId = new Map<string, Counter>();
    for (const rule of rules) {
      // Counters are per API (the hash is in the API's slot); the id is of the definition alone.
      const id = `${rule.apiId}|${alertCounterId(rule)}`;
      let counter = byId.get(id);
      if (!counter) {
        byId.set(id, (counter = { id, rule, rulesAt: new Map(), counts: new Map() }));
        const list = this.countersOf.get(rule.apiId);
        if (list) list.push(counter);
        else this.countersOf.set(rule.apiId, [counter]);
      }
      for (const level of rule.levels) {
        const ids = counter.rulesAt.get(level);
        if (ids) ids.push(rule.ruleId);
        else counter.rulesAt.set(level, [rule.ruleId]);
      }
    }
  }

  /**
   * An event counts in the period (of the rule's zone, absent: UTC) holding the start of its UTC hour, as
   * the counts are kept per hour (libs/core expectedCrossings).
   */
  private periodStart(period: AlertPeriod, zone: string | undefined, hour: number): number {
    const key = `${period}|${zone ?? ''}`;
    const last = this.lastPeriod.get(key);
    if (last?.hour === hour) return last.start;
    const start = alertPeriodStart(period, hourStart(hour), zone);
    this.lastPeriod.set(key, { hour, start });
    return start;
  }

  /** Counts one event sent at `sentAt`; answers how many crossings it made. */
  add(event: VerificationEvent, sentAt: number): number {
    let made = 0;
    for (const counter of this.countersOf.get(event.apiId) ?? []) {
      const member = memberOf(counter.rule, event);
      if (member === undefined) continue;
      const periodStart = this.periodStart(counter.rule.period, counter.rule.timeZone, hourOf(event.time));
      let members = counter.counts.get(periodStart);
      if (!members) counter.counts.set(periodStart, (members = new Map()));
      const count = (members.get(member) ?? 0) + 1;
      members.set(member, count);
      for (const ruleId of counter.rulesAt.get(count) ?? []) {
        const id = alertId(ruleId, member, periodStart, count);
        this.crossings.set(id, { alertId: id, ruleId, member, periodStart, level: count, sentAt });
        made++;
      }
    }
    return made;
  }
}

/**
 * Alert detection's share of a batch (pure; docs/alerts.md "Detection"): an API's rules compiled once per
 * rules version, and a batch's counted tuples turned into increments per alert counter, period and scope
 * member, which applyApiBatch adds in the same atomic step as the counts (and where it finds the crossings).
 *
 * The input is the API's TupleCounter, the events the batch counts (already deduplicated by the offsets),
 * summed per (hour, key, identity, tag set, outcome): the work is per distinct tuple and counter, never per
 * event, and the script gets one increment per counter, period and member. Rules that count the same thing
 * share a counter (libs/core alertCounterId), with the levels of all of them; which rules have which level is
 * the API's level table, written to the store once per rules version (the script reads it on a crossing).
 */
import { OUTCOMES, type AlertPeriod, type AlertRule, type AlertScope } from '@va/contracts';
import {
  alertCounterId,
  alertPeriodOfHour,
  expiresAt,
  dayOfHour,
  monthOfHour,
  type Retention,
} from '@va/core';
import {
  parseIdentity,
  parseTagSet,
  levelField,
  type AlertCounterIncrements,
  type AlertIncrements,
  type AlertLevelTable,
  type DictName,
  type TupleCounter,
} from '@va/store';

/** One counter of an API's rules: what they count and their levels. */
export interface AlertCounterRule {
  counterId: string;
  scope: AlertScope;
  /** Bit o set: outcome code o counts. */
  outcomeMask: number;
  /** All of these must be in the event's tag set (none: no filter). */
  tags: readonly string[];
  period: AlertPeriod;
  /** The zone of the period (the rules' own, part of the counter's id); undefined: UTC. */
  timeZone: string | undefined;
  /** Ascending, distinct (the rules of each: the level table). */
  levels: number[];
}

/** An API's rules as detection uses them, at one version of the rules. */
export interface ApiAlertRules {
  version: number;
  /** Counters of the kinds api, eachIdentity and eachKey: every event may count. */
  everyEvent: AlertCounterRule[];
  /** Counters of one identity, by its externalId. */
  byExternalId: Map<string, AlertCounterRule[]>;
  /** Counters of one key, by keyId. */
  byKeyId: Map<string, AlertCounterRule[]>;
  /** "<counterId>:<level>" -> the ids of the rules with that level, sorted (@va/store writeAlertLevels). */
  levelTable: AlertLevelTable;
}

const ALL_OUTCOMES = (1 << OUTCOMES.length) - 1;

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Groups the rules by what they count (one counter each) and indexes the counters by scope. */
export function compileAlertRules(version: number, rules: readonly AlertRule[]): ApiAlertRules {
  const counters = new Map<string, { rule: AlertCounterRule; byLevel: Map<number, string[]> }>();
  for (const rule of rules) {
    const counterId = alertCounterId(rule);
    let entry = counters.get(counterId);
    if (!entry) {
      const outcomeMask =
        rule.outcomes === undefined
          ? ALL_OUTCOMES
          : rule.outcomes.reduce((mask, o) => mask | (1 << OUTCOMES.indexOf(o)), 0);
      entry = {
        rule: {
          counterId,
          scope: rule.scope,
          outcomeMask,
          tags: rule.tags ?? [],
          period: rule.period,
          timeZone: rule.timeZone,
          levels: [],
        },
        byLevel: new Map(),
      };
      counters.set(counterId, entry);
    }
    for (const level of rule.levels) push(entry.byLevel, level, rule.ruleId);
  }
  const levelTable = new Map<string, string[]>();
  const out: ApiAlertRules = {
    version,
    everyEvent: [],
    byExternalId: new Map(),
    byKeyId: new Map(),
    levelTable,
  };
  for (const { rule, byLevel } of counters.values()) {
    rule.levels = [...byLevel.keys()].sort((a, b) => a - b);
    for (const [level, ruleIds] of byLevel)
      levelTable.set(levelField(rule.counterId, level), [...new Set(ruleIds)].sort());
    const scope = rule.scope;
    if (scope.kind === 'identity') push(out.byExternalId, scope.externalId, rule);
    else if (scope.kind === 'key') push(out.byKeyId, scope.keyId, rule);
    else out.everyEvent.push(rule);
  }
  return out;
}

/** True when the API has no rule: its batches add no counter (the script still checks the version). */
export const hasNoRules = (rules: ApiAlertRules): boolean =>
  rules.everyEvent.length === 0 && rules.byExternalId.size === 0 && rules.byKeyId.size === 0;

/** The dictionary value of a code the batch uses (the core's code cache holds every one of them). */
export type ValueOf = (d: DictName, code: number) => string;

export interface AlertContext {
  /** The batch's clock: detectedAt. */
  now: number;
  retention: Retention;
}

/** Per distinct code, what the filters need of its value (parsed once per batch). */
class ValueMemo {
  private readonly keys = new Map<number, string>();
  private readonly externalIds = new Map<number, string>();
  private readonly tagSets = new Map<number, ReadonlySet<string>>();
  constructor(private readonly valueOf: ValueOf) {}
  keyId(k: number): string {
    let v = this.keys.get(k);
    if (v === undefined) this.keys.set(k, (v = this.valueOf('k', k)));
    return v;
  }
  externalId(i: number): string {
    let v = this.externalIds.get(i);
    if (v === undefined) this.externalIds.set(i, (v = parseIdentity(this.valueOf('i', i)).externalId));
    return v;
  }
  tags(s: number): ReadonlySet<string> {
    let v = this.tagSets.get(s);
    if (v === undefined) this.tagSets.set(s, (v = new Set(parseTagSet(this.valueOf('s', s)).tags)));
    return v;
  }
}

/** The member a tuple counts for under a counter (undefined: it does not count). */
function memberOf(c: AlertCounterRule, k: number, i: number, s: number, o: number, memo: ValueMemo) {
  if ((c.outcomeMask & (1 << o)) === 0) return undefined;
  if (c.tags.length > 0) {
    const tags = memo.tags(s);
    for (const tag of c.tags) if (!tags.has(tag)) return undefined;
  }
  switch (c.scope.kind) {
    case 'api':
      return '';
    case 'key':
    case 'eachKey':
      return memo.keyId(k);
    case 'identity':
    case 'eachIdentity':
      // Events without an identity never count for identity scopes.
      return i < 0 ? undefined : memo.externalId(i);
  }
}

/**
 * Unix ms until which the day or month rollup holding hour h is kept. An event whose rollup is gone is not
 * counted for the period's rules (the store no longer answers that day or month); a period's counter is kept
 * until the rollup of the period's last hour goes (in UTC the period's own bucket; a local day or month may
 * span two UTC ones), so a counter never starts again from zero.
 */
const expireAtOf = (period: AlertPeriod, h: number, retention: Retention): number =>
  period === 'day' ? expiresAt('d', dayOfHour(h), retention) : expiresAt('m', monthOfHour(h), retention);

/** The period of a zone that counts hour h: its start and when its counter may go. */
interface PeriodOfHour {
  start: number;
  expireAt: number;
}

function periodOfHour(
  period: AlertPeriod,
  h: number,
  zone: string | undefined,
  retention: Retention,
): PeriodOfHour {
  const { start, lastHour } = alertPeriodOfHour(period, h, zone);
  return { start, expireAt: expireAtOf(period, lastHour, retention) };
}

/**
 * The alert counters' increments of one API's counted tuples: per counter, period and member, the events
 * its rules count (outcomes, all-of tags, scope). Always carries the rules' version, so that the script
 * refuses them once the rules changed.
 */
export function alertIncrements(
  counter: TupleCounter,
  rules: ApiAlertRules,
  valueOf: ValueOf,
  ctx: AlertContext,
): AlertIncrements {
  const alerts: AlertIncrements = { rulesVersion: rules.version, now: ctx.now, counters: [] };
  if (hasNoRules(rules)) return alerts;
  const memo = new ValueMemo(valueOf);
  const counters: AlertCounterIncrements[] = [];
  /** Per counter: its increments per period start, and the last one used (tuples come hour by hour). */
  const state = new Map<
    AlertCounterRule,
    { byStart: Map<number, Map<string, number>>; start: number; members: Map<string, number> | undefined }
  >();
  const byIdentity = rules.byExternalId.size > 0;
  const byKey = rules.byKeyId.size > 0;
  let hour = NaN;
  let dayKept = 0;
  let monthKept = 0;
  /** Per zone of the counters, the day and month periods of the current hour (asked once per hour and zone). */
  const periods = new Map<string | undefined, Record<AlertPeriod, PeriodOfHour>>();
  const periodsOf = (zone: string | undefined): Record<AlertPeriod, PeriodOfHour> => {
    let p = periods.get(zone);
    if (!p) {
      p = {
        day: periodOfHour('day', hour, zone, ctx.retention),
        month: periodOfHour('month', hour, zone, ctx.retention),
      };
      periods.set(zone, p);
    }
    return p;
  };

  const count = (c: AlertCounterRule, k: number, i: number, s: number, o: number, n: number) => {
    const member = memberOf(c, k, i, s, o, memo);
    if (member === undefined) return;
    // The hour's own rollup is gone: not counted (expireAtOf).
    if ((c.period === 'day' ? dayKept : monthKept) <= ctx.now) return;
    const { start, expireAt } = periodsOf(c.timeZone)[c.period];
    let st = state.get(c);
    if (!st) state.set(c, (st = { byStart: new Map(), start: NaN, members: undefined }));
    if (st.start !== start || st.members === undefined) {
      st.start = start;
      st.members = st.byStart.get(start);
      if (!st.members) {
        st.byStart.set(start, (st.members = new Map()));
        counters.push({
          counterId: c.counterId,
          period: c.period,
          periodStart: start,
          expireAt,
          levels: c.levels,
          members: st.members,
        });
      }
    }
    st.members.set(member, (st.members.get(member) ?? 0) + n);
  };

  counter.forEach((h, k, i, s, o, n) => {
    if (h !== hour) {
      hour = h;
      dayKept = expireAtOf('day', h, ctx.retention);
      monthKept = expireAtOf('month', h, ctx.retention);
      periods.clear();
    }
    for (const c of rules.everyEvent) count(c, k, i, s, o, n);
    if (byKey) for (const c of rules.byKeyId.get(memo.keyId(k)) ?? []) count(c, k, i, s, o, n);
    if (byIdentity && i >= 0)
      for (const c of rules.byExternalId.get(memo.externalId(i)) ?? []) count(c, k, i, s, o, n);
  });
  return { ...alerts, counters };
}

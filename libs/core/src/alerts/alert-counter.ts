/**
 * What a rule counts, apart from its levels (docs/alerts.md "Detection"): its scope, outcomes, tags,
 * period and the period's time zone. Rules that count the same thing share one counter per period and scope member, so that many
 * rules of an API (up to 10,000) cost one counter increment per member and batch, not one per rule. The
 * counter's id names its Redis hash (generation-scoped, libs/store keys.ts), so it is a pure function of
 * the counted definition: every worker, a restarted one and a rebuild find the same counter.
 */
import { createHash } from 'node:crypto';
import { OUTCOMES, type AlertRule } from '@va/contracts';
import { isUtc } from '../calendar';

/** The part of a rule that decides what it counts. */
export type CountedDefinition = Pick<AlertRule, 'scope' | 'outcomes' | 'tags' | 'period' | 'timeZone'>;

/**
 * The scope's target (externalId or keyId; '' for the other kinds), the outcomes in OUTCOMES order
 * (absent: every outcome, the same as all nine), the tags sorted and without repeats, and the zone when it
 * is not UTC (a UTC rule keeps the id it had before rules had zones). Two zones may start a period at the
 * same instant and end it at different ones, so rules of different zones never share a counter.
 */
function canonical(def: CountedDefinition): string {
  const scope = def.scope;
  const target = scope.kind === 'identity' ? scope.externalId : scope.kind === 'key' ? scope.keyId : '';
  const outcomes = OUTCOMES.filter((o) => def.outcomes === undefined || def.outcomes.includes(o));
  const tags = [...new Set(def.tags ?? [])].sort();
  const fields: unknown[] = [scope.kind, target, outcomes, tags, def.period];
  if (!isUtc(def.timeZone)) fields.push(def.timeZone);
  return JSON.stringify(fields);
}

/** 16 hex digits (64 bits) of SHA-256 over the canonical definition. */
export function alertCounterId(def: CountedDefinition): string {
  return createHash('sha256').update(canonical(def)).digest('hex').slice(0, 16);
}

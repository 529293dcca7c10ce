/**
 * The rules of the alerts run (docs/benchmarks.md "Alerts (#44)"): N "each identity" rules spread over the
 * data set's APIs as a platform holds them, each API with a few kinds of rule and many rules of each kind
 * that differ in their levels. Rule n belongs to API n mod A (the medium tenant first), and its rank k on
 * that API (n div A) decides the rest:
 *
 * - what it counts, k mod 6: the period (month for 0-2, day for 3-5) and the outcomes (every outcome;
 *   VALID; RATE_LIMITED or USAGE_EXCEEDED), so an API has six counters however many rules it has;
 * - its levels, j = k div 6: L, 10 L and 100 L with L = 500 (j + 1) for every outcome and VALID, 50 (j + 1)
 *   for the refusals: quota-like levels spread over three orders of magnitude.
 *
 * Pure and deterministic: the same N and APIs give the same rules, with ids of their own (`rule_` + the
 * rule's number in 24 hex digits).
 */
import type { AlertRule, Outcome } from '@va/contracts';
import { alertCounterId } from '@va/core';

export const ALERT_RULES = 10_000;

const OUTCOME_FILTERS: readonly (readonly Outcome[] | undefined)[] = [
  undefined,
  ['VALID'],
  ['RATE_LIMITED', 'USAGE_EXCEEDED'],
];
const PERIODS = ['month', 'day'] as const;
/** Counted definitions per API: every period with every outcome filter. */
export const KINDS_PER_API = PERIODS.length * OUTCOME_FILTERS.length;

export interface PlannedApi {
  apiId: string;
  workspaceId: string;
}

export const ruleIdOf = (n: number): string => `rule_${n.toString(16).padStart(24, '0')}`;

export function planRules(count: number, apis: readonly PlannedApi[], createdAt: number): AlertRule[] {
  return Array.from({ length: count }, (_, n) => {
    const api = apis[n % apis.length]!;
    const k = Math.floor(n / apis.length);
    const kind = k % KINDS_PER_API;
    const outcomes = OUTCOME_FILTERS[kind % OUTCOME_FILTERS.length];
    const step = (Math.floor(k / KINDS_PER_API) + 1) * (kind % OUTCOME_FILTERS.length === 2 ? 50 : 500);
    return {
      ruleId: ruleIdOf(n),
      apiId: api.apiId,
      scope: { kind: 'eachIdentity' },
      ...(outcomes && { outcomes: [...outcomes] }),
      period: PERIODS[Math.floor(kind / OUTCOME_FILTERS.length)]!,
      levels: [step, step * 10, step * 100],
      createdAt,
    };
  });
}

/** Per API: its rules and their distinct counted definitions (what the script increments per member). */
export function rulesPerApi(rules: readonly AlertRule[]): Map<string, { rules: number; counters: number }> {
  const out = new Map<string, { rules: number; kinds: Set<string> }>();
  for (const rule of rules) {
    let api = out.get(rule.apiId);
    if (!api) out.set(rule.apiId, (api = { rules: 0, kinds: new Set() }));
    api.rules++;
    api.kinds.add(alertCounterId(rule));
  }
  return new Map([...out].map(([apiId, a]) => [apiId, { rules: a.rules, counters: a.kinds.size }]));
}

/** One webhook endpoint per workspace that has rules, receiving all of its rules (no `ruleIds`). */
export function workspacesOf(rules: readonly AlertRule[], apis: readonly PlannedApi[]): string[] {
  const withRules = new Set(rules.map((r) => r.apiId));
  return [...new Set(apis.filter((a) => withRules.has(a.apiId)).map((a) => a.workspaceId))];
}

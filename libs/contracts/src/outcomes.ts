/**
 * The nine verification outcomes. The index of an outcome in these tuples is its
 * compact code everywhere in the system (Redis fields, counter arrays).
 */
export const OUTCOMES = [
  'VALID',
  'NOT_FOUND',
  'FORBIDDEN',
  'USAGE_EXCEEDED',
  'RATE_LIMITED',
  'UNAUTHORIZED',
  'DISABLED',
  'INSUFFICIENT_PERMISSIONS',
  'EXPIRED',
] as const;

/** Response field of each outcome, same order as OUTCOMES. */
export const OUTCOME_FIELDS = [
  'valid',
  'notFound',
  'forbidden',
  'usageExceeded',
  'rateLimited',
  'unauthorized',
  'disabled',
  'insufficientPermissions',
  'expired',
] as const;

export type Outcome = (typeof OUTCOMES)[number];
export type OutcomeField = (typeof OUTCOME_FIELDS)[number];
export type OutcomeCode = number; // 0..8

export const OUTCOME_COUNT = OUTCOMES.length;

const codeByOutcome = new Map<string, OutcomeCode>(OUTCOMES.map((o, i) => [o, i]));

export function outcomeCode(outcome: Outcome): OutcomeCode {
  return codeByOutcome.get(outcome)!;
}

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

export type Outcome = (typeof OUTCOMES)[number];

/** The response field of an outcome: its name in camelCase (NOT_FOUND -> notFound). */
export type FieldOf<O extends string> = O extends `${infer Head}_${infer Tail}`
  ? `${Lowercase<Head>}${Capitalize<FieldOf<Tail>>}`
  : Lowercase<O>;
export const fieldOf = <O extends Outcome>(outcome: O): FieldOf<O> =>
  outcome.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as FieldOf<O>;

/** Response field of each outcome, same order as OUTCOMES (derived: the list is written once). */
type FieldsOf<T extends readonly string[]> = { readonly [I in keyof T]: FieldOf<T[I] & string> };
export const OUTCOME_FIELDS = OUTCOMES.map(fieldOf) as unknown as FieldsOf<typeof OUTCOMES>;
export type OutcomeField = (typeof OUTCOME_FIELDS)[number];
/** The nine counters of a response row. */
export type OutcomeCounts = Record<OutcomeField, number>;
export type OutcomeCode = number; // 0..8

export const OUTCOME_COUNT = OUTCOMES.length;

const codeByOutcome = new Map<string, OutcomeCode>(OUTCOMES.map((o, i) => [o, i]));

export function outcomeCode(outcome: Outcome): OutcomeCode {
  return codeByOutcome.get(outcome)!;
}

/** The counters of a row from counts by outcome code (missing codes count 0), in OUTCOMES order. */
export function outcomeCounts(byCode: readonly number[] = []): OutcomeCounts {
  const counts = {} as OutcomeCounts;
  for (let code = 0; code < OUTCOME_COUNT; code++) counts[OUTCOME_FIELDS[code]!] = byCode[code] ?? 0;
  return counts;
}

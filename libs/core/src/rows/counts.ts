/**
 * Counters of one row while it is being summed: the nine outcomes in OUTCOMES order, then
 * the total, in one small array (a plain array: V8 allocates small typed arrays far more
 * slowly, which showed in profiles).
 */
import { OUTCOME_COUNT, OUTCOME_FIELDS, type OrderBy } from '@va/contracts';

export type Counters = number[];

/** Index of the total in a Counters array. */
export const TOTAL = OUTCOME_COUNT;

export const newCounters = (): Counters => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/** Shared by every row without counts; never written to. */
export const ZERO_COUNTERS: readonly number[] = Object.freeze(newCounters());

if (OUTCOME_COUNT !== 9) throw new Error('addCounts adds nine outcomes');

/**
 * Adds nine outcome counts (OUTCOMES order) and their sum into `into`. Written out: buildRows
 * calls it once per cell and group (a query by tag over 30 days: tens of thousands of times), and
 * the loop with its per-count checks was most of that. The total adds in the loop's order.
 */
export function addCounts(into: Counters, counts: readonly number[]): void {
  const c0 = counts[0] ?? 0;
  const c1 = counts[1] ?? 0;
  const c2 = counts[2] ?? 0;
  const c3 = counts[3] ?? 0;
  const c4 = counts[4] ?? 0;
  const c5 = counts[5] ?? 0;
  const c6 = counts[6] ?? 0;
  const c7 = counts[7] ?? 0;
  const c8 = counts[8] ?? 0;
  into[0]! += c0;
  into[1]! += c1;
  into[2]! += c2;
  into[3]! += c3;
  into[4]! += c4;
  into[5]! += c5;
  into[6]! += c6;
  into[7]! += c7;
  into[8]! += c8;
  into[TOTAL]! += 0 + c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8;
}

/** A cell that counts nothing creates no group (docs/api.md#rows: groups need a matching event). */
export function hasCount(counts: readonly number[]): boolean {
  for (let o = 0; o < OUTCOME_COUNT; o++) if ((counts[o] ?? 0) !== 0) return true;
  return false;
}

/** Position in Counters of an orderBy field other than time. */
export function counterIndex(field: Exclude<OrderBy, 'time'>): number {
  return field === 'total' ? TOTAL : OUTCOME_FIELDS.indexOf(field);
}

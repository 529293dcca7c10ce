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

/** Adds nine outcome counts (OUTCOMES order) and their sum into `into`. */
export function addCounts(into: Counters, counts: readonly number[]): void {
  let total = 0;
  for (let o = 0; o < OUTCOME_COUNT; o++) {
    const c = counts[o] ?? 0;
    into[o]! += c;
    total += c;
  }
  into[TOTAL]! += total;
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

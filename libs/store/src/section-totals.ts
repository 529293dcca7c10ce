/**
 * A sealed section's rows that pass one filter, summed (pure, memoized): what a query without groups
 * adds per section read. A query by day with a tag filter adds ~30 day sections of ~3,000 tag-set
 * rows each per request, though neither the sections (immutable under their version: the section
 * cache hands over the same object while the version holds) nor, between two requests, the filter's
 * codes change. So the total is kept per section object and filter codes array (the read dictionaries
 * hand over the same array while the dictionary has not grown: read-dictionaries.ts); an array that
 * grew in place since is a miss, by its length.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { allows, bitmapOf, searchesFirst } from './slice-sums';
import { rowsOfFirst, type SectionData } from './section/codec';

/** Totals kept per section for this many filters at most (then the section's memo starts again). */
const FILTERS_PER_SECTION = 16;
const NO_FILTER: readonly number[] = [];

interface Held {
  length: number;
  /** null: no row passed (nothing is added, as for a section without rows). */
  total: Float64Array | null;
}

const memo = new WeakMap<SectionData, Map<readonly number[], Held>>();

/**
 * The outcome counts of the rows of `section` whose code in `column` is one of `codes` (null: every
 * row), or null when no row passes.
 */
export function filteredTotal(
  section: SectionData,
  column: Uint32Array | null,
  codes: readonly number[] | null,
): Float64Array | null {
  const key = codes ?? NO_FILTER;
  let held = memo.get(section);
  const found = held?.get(key);
  if (found && found.length === key.length) return found.total;
  const total = sumRows(section, column, codes);
  if (!held || held.size >= FILTERS_PER_SECTION) {
    held = new Map();
    memo.set(section, held);
  }
  held.set(key, { length: key.length, total });
  return total;
}

function sumRows(
  section: SectionData,
  column: Uint32Array | null,
  codes: readonly number[] | null,
): Float64Array | null {
  const total = new Float64Array(OUTCOME_COUNT);
  let passed = false;
  const add = (r: number): void => {
    const from = r * OUTCOME_COUNT;
    for (let o = 0; o < OUTCOME_COUNT; o++) total[o]! += section.counts[from + o]!;
    passed = true;
  };
  if (codes !== null && column === section.dims[0] && searchesFirst(codes.length, section.rows)) {
    // A few codes of the first column: their rows by binary search (the column is sorted).
    for (const code of [...new Set(codes)].sort((a, b) => a - b)) {
      const [from, to] = rowsOfFirst(section, code);
      for (let r = from; r < to; r++) add(r);
    }
  } else {
    const allowed = bitmapOf(codes);
    for (let r = 0; r < section.rows; r++) if (allows(allowed, column === null ? 0 : column[r]!)) add(r);
  }
  return passed ? total : null;
}

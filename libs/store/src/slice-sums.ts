/**
 * The array kernels under SectionSums (read-sections.ts), pure: a slice's sums (dense by code, or in
 * maps by composite number or name), how a section read's rows are summed into them (sumMode), the
 * row loops (addDense, addTotal), and a top-N query's ranking pass (rankDense, the deferred rows).
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { TOTAL } from '@va/core';
import { NO_IDENTITY, type SectionData } from './section/codec';
import type { Sign, SliceCounts } from './read-fields';
import { grown } from './typed-arrays';

/** Single-dimension groups with codes below this are summed densely... */
export const DENSE_MAX_CODE = 1 << 20;
/** ...when the rows visited are at least this share of the code range (else the map takes them)... */
const DENSE_MIN_FILL = 1 / 8;
/** ...or when they are at least this many, whatever their spread... */
const DENSE_MANY_ROWS = 4096;
/**
 * ...and always dense below this code (an array of at most ~18 KB per slice). A query by day has a
 * slice per day, and a few rows per section with codes in the thousands (one identity's keys) filled
 * an array of up to ~300 KB per slice at 4,096: most of such a query's allocation and GC.
 */
const DENSE_SMALL_CODE = 256;
/** Codes of a composite group number: 17 bits each (3 × 17 < 53). */
const COMPOSITE_BITS = 17;
export const COMPOSITE = 2 ** COMPOSITE_BITS;

/** A first-dimension filter of at most this many codes reads by binary search instead of a scan. */
export const SEARCH_MAX_CODES = 256;

/**
 * Whether a filter of `codes` codes on a section's first (sorted) column finds its rows by binary search:
 * two searches per code cost more than a scan of the rows past about rows / 2 log2(rows) codes.
 */
export const searchesFirst = (codes: number, rows: number): boolean =>
  codes <= SEARCH_MAX_CODES && 2 * codes * Math.log2(rows + 1) < rows;

export function bitmapOf(codes: readonly number[] | null): Uint8Array | null {
  if (codes === null) return null;
  let max = -1;
  for (const c of codes) if (c > max) max = c;
  const bitmap = new Uint8Array(max + 1);
  for (const c of codes) bitmap[c] = 1;
  return bitmap;
}

/** A filter on a column that is not the first: the row passes when its code is in the bitmap. */
export interface RowTest {
  column: Uint32Array;
  bitmap: Uint8Array;
}

export const allows = (bitmap: Uint8Array | null, code: number): boolean =>
  bitmap === null || (code < bitmap.length && bitmap[code] === 1);

/** Empty arrays shared by every new slice until it reserves codes: a query by day has a slice per day. */
const NO_SUMS = new Float64Array(0);
const NO_FLAGS = new Uint8Array(0);

/** The sums of one slice. */
export class SliceSums {
  /** Dense: counts by code × OUTCOME_COUNT, and which codes were touched. */
  dense = NO_SUMS;
  touched = NO_FLAGS;
  /** Sparse: by composite number, or by name past COMPOSITE codes (made on first use). */
  byNumber: Map<number, Float64Array> | undefined;
  byName: Map<string, Float64Array> | undefined;
  /** Top-N: the ordering counter by code, which codes rows reached, and the rows still to sum. */
  rank = NO_SUMS;
  ranked = NO_FLAGS;
  deferred: DeferredRows[] = [];

  /** `ranking`: a top-N query of one grouped dimension (its dense rows are ranked, then summed). */
  constructor(readonly ranking: boolean) {}

  denseRow(code: number): number {
    this.reserve(code);
    this.touched[code] = 1;
    return code * OUTCOME_COUNT;
  }

  /** Grows the dense arrays to hold `code` (doubling, so that growing code by code stays linear). */
  reserve(code: number): void {
    if (code >= this.touched.length) {
      // Exact at first (the callers that know their largest code reserve it once), then doubling.
      const size = this.touched.length === 0 ? code + 1 : Math.max(code + 1, this.touched.length * 2);
      this.dense = grown(this.dense, size * OUTCOME_COUNT);
      this.touched = grown(this.touched, size);
      if (this.ranking) {
        this.rank = grown(this.rank, size);
        this.ranked = grown(this.ranked, size);
      }
    }
  }
}

/**
 * Where the rows of `ranges` are summed, and the largest grouped code among them. No group: the
 * slice's one dense row. Several grouped dimensions: the map. One: densely when the rows are many
 * (codes from DENSE_MAX_CODE on, if any, in the map), else densely only if the slice's array
 * already covers their codes, the codes are small, or the rows fill enough of the range up to the
 * largest code.
 */
export function sumMode(
  sums: SliceSums,
  groupColumns: readonly Uint32Array[],
  ranges: readonly (readonly [number, number])[],
): { mode: 'dense' | 'dense-below-max' | 'sparse'; max: number } {
  if (groupColumns.length === 0) return { mode: 'dense', max: 0 };
  if (groupColumns.length > 1) return { mode: 'sparse', max: 0 };
  const column = groupColumns[0]!;
  let rows = 0;
  let max = 0;
  for (const [from, to] of ranges) {
    rows += to - from;
    for (let r = from; r < to; r++) if (column[r]! > max) max = column[r]!;
  }
  if (rows >= DENSE_MANY_ROWS) return { mode: max < DENSE_MAX_CODE ? 'dense' : 'dense-below-max', max };
  if (max < sums.touched.length || max < DENSE_SMALL_CODE) return { mode: 'dense', max };
  const fills = max < DENSE_MAX_CODE && rows >= (max + 1) * DENSE_MIN_FILL;
  return { mode: fills ? 'dense' : 'sparse', max };
}

/** Adds the rows of `ranges` into the slice's dense arrays (already grown to the largest code). */
export function addDense(
  sums: SliceSums,
  counts: Float64Array | Uint32Array,
  column: Uint32Array | null,
  tests: readonly RowTest[],
  skip: Uint32Array | null,
  sign: Sign,
  ranges: readonly (readonly [number, number])[],
): void {
  if (column === null && skip === null && tests.length <= 1) {
    addTotal(sums, counts, tests[0], sign, ranges);
    return;
  }
  const { dense, touched } = sums;
  for (const [from, to] of ranges) {
    rows: for (let r = from; r < to; r++) {
      for (const t of tests) if (!allows(t.bitmap, t.column[r]!)) continue rows;
      if (skip !== null && skip[r] === NO_IDENTITY) continue;
      const code = column === null ? 0 : column[r]!;
      touched[code] = 1;
      const at = code * OUTCOME_COUNT;
      const row = r * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) dense[at + o]! += sign * counts[row + o]!;
    }
  }
}

if (OUTCOME_COUNT !== 9) throw new Error('addTotal and merge write nine outcomes');

/**
 * addDense without groups and with at most one row test: the slice's one row, as a query by day with
 * a tag filter sums it (every day's tag-set section, hundreds of rows). The nine sums stay in locals
 * until the end. libs/store/bench/section-sums.ts (90 days of 1,351-row sections): one tag by day 5.8 ns
 * per row, no filter 7.0, against 36 and 69 before this loop and the shared empty arrays of a new slice.
 */
function addTotal(
  sums: SliceSums,
  counts: Float64Array | Uint32Array,
  test: RowTest | undefined,
  sign: Sign,
  ranges: readonly (readonly [number, number])[],
): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let s8 = 0;
  let passed = false;
  const column = test?.column;
  const bitmap = test?.bitmap;
  for (const [from, to] of ranges) {
    for (let r = from; r < to; r++) {
      if (bitmap !== undefined) {
        const code = column![r]!;
        if (code >= bitmap.length || bitmap[code] !== 1) continue;
      }
      const row = r * OUTCOME_COUNT;
      s0 += counts[row]!;
      s1 += counts[row + 1]!;
      s2 += counts[row + 2]!;
      s3 += counts[row + 3]!;
      s4 += counts[row + 4]!;
      s5 += counts[row + 5]!;
      s6 += counts[row + 6]!;
      s7 += counts[row + 7]!;
      s8 += counts[row + 8]!;
      passed = true;
    }
  }
  if (!passed) return;
  const { dense } = sums;
  dense[0]! += sign * s0;
  dense[1]! += sign * s1;
  dense[2]! += sign * s2;
  dense[3]! += sign * s3;
  dense[4]! += sign * s4;
  dense[5]! += sign * s5;
  dense[6]! += sign * s6;
  dense[7]! += sign * s7;
  dense[8]! += sign * s8;
  sums.touched[0] = 1;
}

/** Rows of a dense section read of a top-N query, summed once the largest groups are known. */
interface DeferredRows {
  counts: Float64Array | Uint32Array;
  column: Uint32Array;
  tests: readonly RowTest[];
  skip: Uint32Array | null;
  sign: Sign;
  ranges: readonly (readonly [number, number])[];
}

/** The ordering counter (an outcome, or TOTAL) of the dense sums at `at`. */
export function denseValue(dense: Float64Array, at: number, counter: number): number {
  if (counter !== TOTAL) return dense[at + counter]!;
  let total = 0;
  for (let o = 0; o < OUTCOME_COUNT; o++) total += dense[at + o]!;
  return total;
}

/** Each row's total of its nine outcomes, per decoded section (sections are cached and read again). */
const rowTotals = new WeakMap<SectionData, Float64Array>();

function totalsOf(section: SectionData): Float64Array {
  let totals = rowTotals.get(section);
  if (!totals) {
    const { counts, rows } = section;
    totals = new Float64Array(rows);
    for (let r = 0; r < rows; r++) {
      let total = 0;
      const row = r * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) total += counts[row + o]!;
      totals[r] = total;
    }
    rowTotals.set(section, totals);
  }
  return totals;
}

/** Adds the ordering counter of the rows of `ranges` into the slice's rank (arrays already grown). */
export function rankDense(
  sums: SliceSums,
  section: SectionData,
  column: Uint32Array,
  tests: readonly RowTest[],
  skip: Uint32Array | null,
  sign: Sign,
  ranges: readonly (readonly [number, number])[],
  counter: number,
): void {
  const { rank, ranked } = sums;
  const values = counter === TOTAL ? totalsOf(section) : null;
  const { counts } = section;
  for (const [from, to] of ranges) {
    rows: for (let r = from; r < to; r++) {
      for (const t of tests) if (!allows(t.bitmap, t.column[r]!)) continue rows;
      if (skip !== null && skip[r] === NO_IDENTITY) continue;
      const code = column[r]!;
      ranked[code] = 1;
      rank[code]! += sign * (values === null ? counts[r * OUTCOME_COUNT + counter]! : values[r]!);
    }
  }
}

/**
 * Adds the nine sums at `at` into the group's counts. A new group's counts are made from them in
 * one array literal (not zeros filled, then added): a query by tag set makes thousands. `+ 0` as
 * the additions to zero did: -0 becomes 0.
 */
export function merge(into: SliceCounts, group: string, from: Float64Array, at: number): void {
  const counts = into.get(group);
  if (counts === undefined) {
    into.set(group, [
      from[at]! + 0,
      from[at + 1]! + 0,
      from[at + 2]! + 0,
      from[at + 3]! + 0,
      from[at + 4]! + 0,
      from[at + 5]! + 0,
      from[at + 6]! + 0,
      from[at + 7]! + 0,
      from[at + 8]! + 0,
    ]);
    return;
  }
  for (let o = 0; o < OUTCOME_COUNT; o++) counts[o]! += from[at + o]!;
}

/**
 * Summing sealed sections (section/codec.ts) into the groups of a query by dictionary code, over
 * the decoded typed arrays (pure, no I/O): rows are filtered and added by number, and a group's
 * name string (read-fields.ts: `<key>.<identity>.<set>`) is made once per group at the end, not
 * per row.
 *
 * - A filter on the section's first dimension (the identity of x and f, the code of k, i, s) with
 *   few codes reads only those codes' rows (binary search, rowsOfFirst); other filters test each row
 *   against a bitmap of the allowed codes.
 * - Groups of one dimension are summed into a dense Float64Array indexed by code when the rows are
 *   many for the codes they span (the array is sized by the largest code and walked whole at the
 *   end: one identity's few keys in a dictionary of 10,000 would cost far more than their rows);
 *   the single group of a query that groups by nothing is dense too. Other groups go into a map by
 *   a number made of the grouped codes (or, past 2^17 codes, by name).
 * - A top-N query (libs/core topGroupsOf) of one grouped dimension ranks before it sums: a first
 *   pass adds only the ordering counter of each row (the row totals of a section computed once per
 *   decoded section), and the nine outcomes are summed afterwards for the groups at or above the
 *   limit-th largest value only. Top 10 identities over 30 days reads ~60,000 rows: the nine
 *   additions per row were the largest item of that query's profile.
 *
 * The slices' arrays and the row loops over them are in slice-sums.ts; this module decides, per
 * section read, which rows and which loop.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { counterValue, topThreshold, type TopGroups } from '@va/core';
import { NO_IDENTITY, rowsOfFirst, type Section, type SectionCube, type SectionData } from './section/codec';
import type { DictName } from './keys';
import { groupCodes, type CodeCounts, type Sign, type SliceCounts } from './read-fields';
import { filteredTotal } from './section-totals';
import {
  addDense,
  allows,
  bitmapOf,
  COMPOSITE,
  DENSE_MAX_CODE,
  denseValue,
  merge,
  rankDense,
  searchesFirst,
  SliceSums,
  sumMode,
  type RowTest,
} from './slice-sums';

/**
 * A decoded section as the reader keeps it: counts in 32 bits when every count fits (half the
 * memory of the codec's Float64Array in the cache, and half the bytes the sums walk).
 */
export type SectionView = SectionData;

/** The section with its counts in a Uint32Array when every count fits, else as it is. */
export function compactCounts(section: Section): SectionView {
  const { counts } = section;
  for (let n = 0; n < counts.length; n++) if (counts[n]! > 0xffffffff) return section;
  return { ...section, counts: Uint32Array.from(counts) };
}

/** What a section read sums: codes each filter allows (null = no filter) and the grouped dimensions. */
export interface SectionSelection {
  keys: readonly number[] | null;
  identities: readonly number[] | null;
  sets: readonly number[] | null;
  group: { key: boolean; identity: boolean; set: boolean };
}

/** The dimension each column of a section's cube holds (codec.ts SECTION_DIMS order). */
export const ROLES: Readonly<Record<SectionCube, readonly DictName[]>> = {
  t: [],
  k: ['k'],
  i: ['i'],
  s: ['s'],
  x: ['i', 'k'],
  f: ['i', 'k', 's'],
};

export class SectionSums {
  private readonly slices = new Map<number | null, SliceSums>();
  private readonly keys: Uint8Array | null;
  private readonly identities: Uint8Array | null;
  private readonly sets: Uint8Array | null;
  private readonly grouped: readonly DictName[];
  /** Where each dimension's code is in a group's codes (this.grouped order); -1: not grouped. */
  private readonly codeAt: Readonly<Record<DictName, number>>;
  /**
   * The name of a dense row's group around its code (read-fields.ts): `..` and `` grouped by set.
   * Without groups the first is the whole name. Made once: a query by tag set names thousands.
   */
  private readonly denseName: readonly [string, string];
  private readonly sorted = new Map<DictName, readonly number[] | null>();
  /** Set when the query is a top-N of one grouped dimension: its rows are ranked before they are summed. */
  private readonly top: TopGroups | undefined;

  constructor(
    private readonly sel: SectionSelection,
    top?: TopGroups,
  ) {
    this.keys = bitmapOf(sel.keys);
    this.identities = bitmapOf(sel.identities);
    this.sets = bitmapOf(sel.sets);
    const grouped: DictName[] = [];
    if (sel.group.key) grouped.push('k');
    if (sel.group.identity) grouped.push('i');
    if (sel.group.set) grouped.push('s');
    this.grouped = grouped;
    this.codeAt = { k: grouped.indexOf('k'), i: grouped.indexOf('i'), s: grouped.indexOf('s') };
    // Dense rows are made only with one grouped dimension or none.
    const name = grouped.length <= 1 ? this.nameOf([0]) : '..';
    const zero = name.indexOf('0');
    this.denseName = zero < 0 ? [name, ''] : [name.slice(0, zero), name.slice(zero + 1)];
    this.top = grouped.length === 1 ? top : undefined;
  }

  private sliceOf(slice: number | null): SliceSums {
    let sums = this.slices.get(slice);
    if (!sums) {
      sums = new SliceSums(this.top !== undefined);
      this.slices.set(slice, sums);
    }
    return sums;
  }

  private filterOf(role: DictName): Uint8Array | null {
    return role === 'k' ? this.keys : role === 'i' ? this.identities : this.sets;
  }

  private codesOf(role: DictName): readonly number[] | null {
    return role === 'k' ? this.sel.keys : role === 'i' ? this.sel.identities : this.sel.sets;
  }

  /** codesOf, without repeats and in order (made once per query, not per section). */
  private sortedCodesOf(role: DictName): readonly number[] | null {
    let sorted = this.sorted.get(role);
    if (sorted === undefined) {
      const codes = this.codesOf(role);
      sorted = codes === null ? null : [...new Set(codes)].sort((a, b) => a - b);
      this.sorted.set(role, sorted);
    }
    return sorted;
  }

  /** Adds every row of `section` the filters allow, times sign, to the groups of `slice`. */
  add(slice: number | null, section: SectionView, sign: Sign): void {
    const roles = ROLES[section.cube];
    for (const role of ['k', 'i', 's'] as const) {
      if (this.codesOf(role) !== null && !roles.includes(role)) {
        throw new Error(`a ${section.cube} section cannot filter by ${role}`);
      }
    }
    for (const role of this.grouped) {
      if (!roles.includes(role)) throw new Error(`a ${section.cube} section cannot group by ${role}`);
    }
    if (section.rows === 0) return;
    const sums = this.sliceOf(slice);
    const only = this.grouped.length === 0 ? this.soleFilter(section) : undefined;
    if (only) {
      // No group: one row of nine counts per section, the filtered total (kept per section: section-totals.ts).
      const total = filteredTotal(section, only.column, only.codes);
      if (total === null) return;
      const at = sums.denseRow(0);
      for (let o = 0; o < OUTCOME_COUNT; o++) sums.dense[at + o]! += sign * total[o]!;
      return;
    }
    const { counts } = section;

    // Row ranges: by binary search of the first column when its filter names few codes, for the
    // rows there are (two searches per code: more than a scan of the rows past about rows / 2 log2(rows)
    // codes; one tag of the medium tenant names hundreds of tag sets, against a day's ~1,300 rows).
    const ranges: [number, number][] = [];
    let first = 0;
    const firstCodes = roles.length > 0 ? this.sortedCodesOf(roles[0]!) : null;
    if (firstCodes !== null && searchesFirst(firstCodes.length, section.rows)) {
      for (const code of firstCodes) {
        const range = rowsOfFirst(section, code);
        if (range[1] > range[0]) ranges.push(range);
      }
      first = 1;
    } else ranges.push([0, section.rows]);

    // Columns to test per row, and where each grouped dimension comes from.
    const tests: RowTest[] = [];
    for (let d = first; d < roles.length; d++) {
      const bitmap = this.filterOf(roles[d]!);
      if (bitmap) tests.push({ column: section.dims[d]!, bitmap });
    }
    const groupColumns = this.grouped.map((role) => section.dims[roles.indexOf(role)]!);
    const identityColumn = roles.includes('i') ? section.dims[roles.indexOf('i')]! : null;
    const skipNoIdentity = this.sel.group.identity && identityColumn !== null;
    const sum = sumMode(sums, groupColumns, ranges);
    if (sum.mode === 'dense') {
      // The common case, in a loop of its own: the arrays grown once, no call per row.
      sums.reserve(sum.max);
      const skip = skipNoIdentity ? identityColumn : null;
      const column = groupColumns[0] ?? null;
      if (sums.ranking && column !== null) {
        rankDense(sums, section, column, tests, skip, sign, ranges, this.top!.counter);
        sums.deferred.push({ counts, column, tests, skip, sign, ranges });
        return;
      }
      addDense(sums, counts, column, tests, skip, sign, ranges);
      return;
    }

    const addRow = (into: Float64Array, at: number, r: number): void => {
      const from = r * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) into[at + o]! += sign * counts[from + o]!;
    };

    for (const [from, to] of ranges) {
      rows: for (let r = from; r < to; r++) {
        for (const t of tests) if (!allows(t.bitmap, t.column[r]!)) continue rows;
        if (skipNoIdentity && identityColumn![r] === NO_IDENTITY) continue;
        if (sum.mode === 'dense-below-max' && groupColumns[0]![r]! < DENSE_MAX_CODE) {
          const at = sums.denseRow(groupColumns[0]![r]!); // may grow sums.dense: read it after
          addRow(sums.dense, at, r);
        } else {
          addRow(this.sparseRow(sums, groupColumns, r), 0, r);
        }
      }
    }
  }

  /** The one filter on the section's columns (codes null: none), or undefined when two or more filter it. */
  private soleFilter(
    section: SectionView,
  ): { column: Uint32Array | null; codes: readonly number[] | null } | undefined {
    const roles = ROLES[section.cube];
    let only: { column: Uint32Array | null; codes: readonly number[] | null } = { column: null, codes: null };
    for (const [d, role] of roles.entries()) {
      const codes = this.codesOf(role);
      if (codes === null) continue;
      if (only.codes !== null) return undefined;
      only = { column: section.dims[d]!, codes };
    }
    return only;
  }

  private sparseRow(sums: SliceSums, columns: readonly Uint32Array[], r: number): Float64Array {
    let id = 0;
    let small = true;
    for (const column of columns) {
      const code = column[r]!;
      if (code >= COMPOSITE - 1) small = false;
      id = id * COMPOSITE + code + 1;
    }
    if (small) return rowOf((sums.byNumber ??= new Map()), id);
    return rowOf((sums.byName ??= new Map()), columns.map((column) => column[r]).join('.'));
  }

  /** Adds every summed group into `counts` under its group name (read-fields.ts). */
  addTo(counts: CodeCounts): void {
    for (const [slice, sums] of this.slices) {
      const into = counts.slice(slice);
      if (sums.deferred.length > 0) this.sumLargest(sums, into);
      const { touched, dense } = sums;
      const [before, after] = this.denseName;
      for (let code = 0; code < touched.length; code++) {
        if (touched[code] !== 1) continue;
        const name = this.grouped.length === 0 ? before : before + code.toString(36) + after;
        merge(into, name, dense, code * OUTCOME_COUNT);
      }
      for (const [id, row] of sums.byNumber ?? []) {
        const codes: number[] = [];
        let rest = id;
        for (let n = 0; n < this.grouped.length; n++) {
          const part = rest % COMPOSITE;
          codes.unshift(part - 1);
          rest = (rest - part) / COMPOSITE;
        }
        merge(into, this.nameOf(codes), row, 0);
      }
      for (const [name, row] of sums.byName ?? [])
        merge(into, this.nameOf(name.split('.').map(Number)), row, 0);
    }
  }

  /**
   * Top-N: sums the ranked rows of the groups that can be among the first rows, and leaves in
   * `into` (which holds the delta's groups, read-fields.ts) only those. A group's value is its
   * ranked rows, its rows summed at once (sections read sparsely) and its delta; groups at or above
   * the limit-th largest value stay (ties too, as keepLargest keeps them). Sparse groups of one
   * dimension occur only past DENSE_MAX_CODE codes or with few rows: then every row is summed.
   */
  private sumLargest(sums: SliceSums, into: SliceCounts): void {
    const { counter, limit } = this.top!;
    const deferred = sums.deferred;
    sums.deferred = [];
    const at = ['k', 'i', 's'].indexOf(this.grouped[0]!);
    const deltaCodes = new Map<string, number>();
    for (const name of into.keys()) deltaCodes.set(name, groupCodes(name)[at]!);
    const sparse = (sums.byNumber?.size ?? 0) > 0 || (sums.byName?.size ?? 0) > 0;
    if (sparse || [...deltaCodes.values()].some((code) => code >= DENSE_MAX_CODE)) {
      for (const d of deferred) addDense(sums, d.counts, d.column, d.tests, d.skip, d.sign, d.ranges);
      return;
    }
    for (const code of deltaCodes.values()) sums.reserve(code);
    const { rank, ranked, touched, dense } = sums;
    for (const [name, code] of deltaCodes) {
      rank[code]! += counterValue(into.get(name)!, counter);
      ranked[code] = 1;
    }
    const codes: number[] = [];
    for (let code = 0; code < ranked.length; code++) {
      if (touched[code] === 1) {
        rank[code]! += denseValue(dense, code * OUTCOME_COUNT, counter);
        ranked[code] = 1;
      }
      if (ranked[code] === 1) codes.push(code);
    }
    const threshold = topThreshold(
      Float64Array.from(codes, (code) => rank[code]!),
      limit,
    );
    const kept = new Uint8Array(ranked.length);
    for (const code of codes) if (rank[code]! >= threshold) kept[code] = 1;
    for (const [name, code] of deltaCodes) if (kept[code] !== 1) into.delete(name);
    for (let code = 0; code < touched.length; code++) if (kept[code] !== 1) touched[code] = 0;
    for (const d of deferred) {
      const tests = [...d.tests, { column: d.column, bitmap: kept }];
      addDense(sums, d.counts, d.column, tests, d.skip, d.sign, d.ranges);
    }
  }

  /** The group name of the grouped codes (in this.grouped order). */
  private nameOf(codes: readonly number[]): string {
    const { k, i, s } = this.codeAt;
    const part = (n: number): string => (n < 0 ? '' : codes[n]!.toString(36));
    return `${part(k)}.${part(i)}.${part(s)}`;
  }
}

/** The outcome counts of group `id` in `rows`, added (zero) when it has none yet. */
function rowOf<K>(rows: Map<K, Float64Array>, id: K): Float64Array {
  let row = rows.get(id);
  if (!row) {
    row = new Float64Array(OUTCOME_COUNT);
    rows.set(id, row);
  }
  return row;
}

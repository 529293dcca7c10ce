/**
 * Cells (counts per slice and dimension combination, filters applied) -> response rows
 * (docs/api.md#grouping, #rows, #order-and-limit): group, zero-fill slices,
 * order, apply the row cap and the limit.
 */
import type { Datapoint, FieldError } from '@va/contracts';
import type { Cell, ParsedQuery } from '../types';
import { overRowCap, rowCapError } from './cap';
import { addCounts, hasCount, newCounters, ZERO_COUNTERS, type Counters } from './counts';
import { groupJson, ROW_BYTES, toDatapoint, writeDatapoint } from './datapoint';
import { ByteWriter, capacityFor } from './json';
import { compareGroups, groupDimsOf, groupIndex, hasGroupDims, type Group, type GroupDims } from './groups';
import { orderRows, type RowGrid } from './order';

export interface BuildRowsOptions {
  /**
   * Slice starts (unix ms, ascending) of the queried range when the query has a time
   * granularity, null when it has none. Every cell's slice must be one of them.
   */
  slices: readonly number[] | null;
  /**
   * The query had no start: the range begins at the first slice where some row counts
   * something, so slices before it are dropped ([] rows when nothing counts).
   */
  trimLeading: boolean;
  /** Row cap (Config.maxRows). */
  maxRows: number;
  /**
   * Cells of the whole range (any slice): every group counting something there has rows, even
   * when `cells` cover only some slices of the range (a limit in time order needs only the
   * first or last slices, but the groups of all of them). Their counts are not added.
   */
  groupCells?: Iterable<Cell>;
}

export type BuildRowsResult = { ok: true; rows: Datapoint[] } | { ok: false; error: FieldError };

export function buildRows(
  query: ParsedQuery,
  cells: Iterable<Cell>,
  options: BuildRowsOptions,
): BuildRowsResult {
  const ordered = orderedRows(query, cells, options);
  if (!ordered.ok) return ordered;
  const { length, time, counters, group } = ordered.rows;
  const rows: Datapoint[] = new Array(length);
  for (let i = 0; i < length; i++) rows[i] = toDatapoint(time(i), counters(i), group(i));
  return { ok: true, rows };
}

/** The rows of buildRows as JSON bytes, written in pieces (never one string of the whole answer). */
export interface RowsJson {
  /** Number of rows. */
  length: number;
  /**
   * The JSON array, `rowsPerPiece` rows a piece (UTF-8): the pieces joined are JSON.stringify of
   * buildRows' rows. Lazy: a caller can send each piece before the next is written.
   */
  pieces(rowsPerPiece: number): Generator<Uint8Array, void, undefined>;
}

export type BuildRowsJsonResult = { ok: true; rows: RowsJson } | { ok: false; error: FieldError };

/** buildRows, answered as JSON bytes (writeDatapoint) without building the row objects. */
export function buildRowsJson(
  query: ParsedQuery,
  cells: Iterable<Cell>,
  options: BuildRowsOptions,
): BuildRowsJsonResult {
  const ordered = orderedRows(query, cells, options);
  if (!ordered.ok) return ordered;
  const { length, time, counters, groupNumber, groupAt } = ordered.rows;
  const groupJsons: (string | undefined)[] = [];
  function* pieces(rowsPerPiece: number): Generator<Uint8Array, void, undefined> {
    // Sized for the rows of one piece (grown when their groups are long): a light answer's few
    // rows do not allocate (and zero) 64 KB.
    const out = new ByteWriter(capacityFor(Math.min(length, rowsPerPiece), ROW_BYTES));
    out.reserve(1);
    out.char(0x5b /* [ */);
    for (let i = 0; i < length; i++) {
      if (i > 0 && i % rowsPerPiece === 0) yield out.take();
      if (i > 0) {
        out.reserve(1);
        out.char(0x2c /* , */);
      }
      const g = groupNumber(i);
      writeDatapoint(out, time(i), counters(i), (groupJsons[g] ??= groupJson(groupAt(g))));
    }
    out.reserve(1);
    out.char(0x5d /* ] */);
    yield out.done();
  }
  return { ok: true, rows: { length, pieces } };
}

/** Rows addressed by their position in the answer. */
interface OrderedRows {
  length: number;
  time(i: number): number | null;
  counters(i: number): readonly number[];
  group(i: number): Group;
  /** Number of the group of row i (groupAt gives it). */
  groupNumber(i: number): number;
  groupAt(group: number): Group;
}

/** Groups, zero-filled slices, row cap, order and limit: the rows, not yet written out. */
function orderedRows(
  query: ParsedQuery,
  cells: Iterable<Cell>,
  options: BuildRowsOptions,
): { ok: true; rows: OrderedRows } | { ok: false; error: FieldError } {
  const granular = query.groupBy.granularity !== undefined;
  if (granular && options.slices === null) throw new Error('buildRows: a time granularity needs slices');
  const slices: readonly (number | null)[] = granular ? options.slices! : [null];

  const sums = sumCells(cells, groupDimsOf(query), slices, granular, options.groupCells);
  const firstSlice = options.trimLeading && granular ? sums.firstCounted : 0;
  const sliceCount = slices.length - firstSlice;
  const groupCount = sums.groups.length;

  const rowCount = groupCount * sliceCount;
  if (overRowCap(rowCount, query.limit, options.maxRows)) {
    return { ok: false, error: rowCapError(rowCount, options.maxRows) };
  }

  // Groups were numbered as met; rows are addressed by rank in the default order.
  const byRank = sums.groups.map((_, i) => i).sort((a, b) => compareGroups(sums.groups[a]!, sums.groups[b]!));
  const rankOf = new Int32Array(groupCount);
  byRank.forEach((group, rank) => (rankOf[group] = rank));
  const n = slices.length;
  const grid: RowGrid = {
    groupCount,
    sliceCount,
    countersAt: (rank, slice) => sums.counters.get(byRank[rank]! * n + slice + firstSlice),
    forEachCounted: (visit) =>
      sums.counters.forEach((counters, at) => {
        const group = Math.floor(at / n);
        visit(rankOf[group]!, at - group * n - firstSlice, counters);
      }),
  };

  const refs = orderRows(grid, query, query.limit ?? rowCount);
  const groupNumber = (i: number) => byRank[refs.group[i]!]!;
  const sliceOf = (i: number) => refs.slice[i]! + firstSlice;
  return {
    ok: true,
    rows: {
      length: refs.length,
      time: (i) => slices[sliceOf(i)]!,
      counters: (i) => sums.counters.get(groupNumber(i) * n + sliceOf(i)) ?? ZERO_COUNTERS,
      group: (i) => sums.groups[groupNumber(i)]!,
      groupNumber,
      groupAt: (group) => sums.groups[group]!,
    },
  };
}

interface Sums {
  /** Groups in the order first met. */
  groups: Group[];
  /** Counters by group number * slices.length + slice index; only where something counted. */
  counters: Map<number, Counters>;
  /** Index of the first slice where any group counts something (slices.length when none does). */
  firstCounted: number;
}

/**
 * One pass over the cells. A query by tag over 30 days sums thousands of cells into each of a few
 * dozen groups, so the per (cell, group) work is kept to an array read: groupsOf remembers a
 * cell's groups by its shared objects (groups.ts), and each group keeps the counters of the slice
 * it last counted in (readers hand over the cells slice by slice), so the map by group and slice
 * is looked up only when a group moves to another slice.
 */
function sumCells(
  cells: Iterable<Cell>,
  dims: GroupDims,
  slices: readonly (number | null)[],
  granular: boolean,
  groupCells: Iterable<Cell> | undefined,
): Sums {
  // Cells of one dictionary code repeat only across slices: without them, memo lookups would all miss.
  const index = groupIndex(dims, granular);
  // Without group dimensions there is one group, present even when nothing matched
  // (one all-zero row, or zero-filled slices).
  if (!hasGroupDims(dims)) index.emptyGroup();
  const found = { groups: [] as readonly number[], count: 0 };
  if (groupCells) for (const cell of groupCells) if (hasCount(cell.counts)) index.groupsOf(cell, found);
  const counters = new Map<number, Counters>();
  const sliceIndex = new Map<number | null, number>();
  slices.forEach((slice, i) => sliceIndex.set(slice, i));
  const n = slices.length;
  let firstCounted = n;
  /** Per group number: the slice index its counters in lastCounters are for (-1: none yet). */
  const lastSlice: number[] = [];
  const lastCounters: (Counters | undefined)[] = [];

  let cellSlice: number | null | undefined; // the slice `slice` indexes (undefined: none yet)
  let slice = 0;
  for (const cell of cells) {
    if (!hasCount(cell.counts)) continue;
    const at = granular ? cell.slice : null;
    if (at !== cellSlice) {
      const found = sliceIndex.get(at);
      if (found === undefined)
        throw new Error(`buildRows: cell slice ${cell.slice} is not a slice of the range`);
      slice = found;
      cellSlice = at;
    }
    index.groupsOf(cell, found);
    const { groups, count } = found;
    for (let g = 0; g < count; g++) {
      const group = groups[g]!;
      let sum = lastSlice[group] === slice ? lastCounters[group] : undefined;
      if (sum === undefined) {
        const key = group * n + slice;
        sum = counters.get(key);
        if (sum === undefined) {
          sum = newCounters();
          counters.set(key, sum);
          if (slice < firstCounted) firstCounted = slice;
        }
        while (lastSlice.length <= group) {
          lastSlice.push(-1);
          lastCounters.push(undefined);
        }
        lastSlice[group] = slice;
        lastCounters[group] = sum;
      }
      addCounts(sum, cell.counts);
    }
  }
  return { groups: index.groups, counters, firstCounted };
}

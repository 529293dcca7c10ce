/**
 * Which rows come first (docs/api.md#order-and-limit), computed without building every
 * row: the rows are the grid groups x slices, most of which may be zero-filled, and a
 * top-N query over many groups and slices must not materialise them all.
 *
 * Rows are addressed by (group index, slice index): groups sorted in the default order,
 * slices ascending from the first slice of the range. The default order is then simply
 * slice-major, group-minor.
 */
import type { OrderBy } from '@va/contracts';
import { counterIndex } from './counts';
import { firstK } from './topN';

export interface RowGrid {
  groupCount: number;
  sliceCount: number;
  /** Counters of a row, or undefined when nothing was counted there (zero row). */
  countersAt(group: number, slice: number): readonly number[] | undefined;
  /** Every row with counters, in no particular order. */
  forEachCounted(visit: (group: number, slice: number, counters: readonly number[]) => void): void;
}

export interface RowRefs {
  group: Int32Array;
  slice: Int32Array;
  length: number;
}

export interface RowOrder {
  orderBy?: OrderBy;
  order?: 'asc' | 'desc';
}

/** The first `take` rows of the grid in the query's order. */
export function orderRows(grid: RowGrid, order: RowOrder, take: number): RowRefs {
  const refs = newRefs(Math.min(take, grid.groupCount * grid.sliceCount));
  const desc = order.order === 'desc';
  if (order.orderBy === undefined) {
    // `order` alone reverses the default order as a whole.
    walkGrid(grid, refs, { slicesDesc: desc, groupsDesc: desc });
  } else if (order.orderBy === 'time') {
    // Ties (one slice) fall back to the default order: groups ascending.
    walkGrid(grid, refs, { slicesDesc: desc, groupsDesc: false });
  } else {
    orderByCounter(grid, refs, counterIndex(order.orderBy), desc);
  }
  return refs;
}

function newRefs(capacity: number): RowRefs {
  return { group: new Int32Array(capacity), slice: new Int32Array(capacity), length: 0 };
}

function push(refs: RowRefs, group: number, slice: number): boolean {
  if (refs.length >= refs.group.length) return false;
  refs.group[refs.length] = group;
  refs.slice[refs.length] = slice;
  refs.length++;
  return refs.length < refs.group.length;
}

/** Slice-major walk, optionally skipping rows; stops when refs is full. */
function walkGrid(
  grid: RowGrid,
  refs: RowRefs,
  direction: { slicesDesc: boolean; groupsDesc: boolean },
  skip?: (group: number, slice: number) => boolean,
): void {
  const { groupCount: g, sliceCount: s } = grid;
  if (refs.length >= refs.group.length) return;
  for (let i = 0; i < s; i++) {
    const slice = direction.slicesDesc ? s - 1 - i : i;
    for (let j = 0; j < g; j++) {
      const group = direction.groupsDesc ? g - 1 - j : j;
      if (skip?.(group, slice)) continue;
      if (!push(refs, group, slice)) return;
    }
  }
}

/**
 * orderBy a counter: ties fall back to the default order (slice, then group ascending).
 * Rows where the counter is 0 (every zero-filled row among them) are in default order
 * already, so only the rows with a positive value need sorting: they come after the
 * zeros ascending, before them descending.
 */
function orderByCounter(grid: RowGrid, refs: RowRefs, field: number, desc: boolean): void {
  const groups: number[] = [];
  const slices: number[] = [];
  const values: number[] = [];
  grid.forEachCounted((group, slice, counters) => {
    const value = counters[field]!;
    if (value > 0) {
      groups.push(group);
      slices.push(slice);
      values.push(value);
    }
  });
  const positives = values.length;
  const zeroRows = grid.groupCount * grid.sliceCount - positives;
  const isPositive = (group: number, slice: number) => (grid.countersAt(group, slice)?.[field] ?? 0) > 0;
  const walkZeros = () => walkGrid(grid, refs, { slicesDesc: false, groupsDesc: false }, isPositive);

  if (!desc) walkZeros();
  const need = refs.group.length - refs.length;
  if (need > 0 && positives > 0) {
    const g = grid.groupCount;
    const compare = (a: number, b: number) =>
      (desc ? values[b]! - values[a]! : values[a]! - values[b]!) ||
      slices[a]! * g + groups[a]! - (slices[b]! * g + groups[b]!);
    for (const i of firstK(positives, need, compare)) push(refs, groups[i]!, slices[i]!);
  }
  if (desc && zeroRows > 0) walkZeros();
}

/**
 * What a read does with a rollup's children reads, worked out once per reads array (pure).
 *
 * The query service reuses a plan, and its reads array, while the compaction point holds
 * (services/query read-plan.ts memoPlan), and unitsOf groups that array the same way on every
 * request: a New York month by day reads ~300 hour buckets in ~60 runs (an edge hour added to one
 * local day and subtracted from the next). Their grouping, distinct children and runs per (slice,
 * sign) were a third of such a request's CPU when made anew each time; keyed on the arrays
 * themselves (WeakMap: gone with the plan), they are made once.
 */
import type { BucketRead } from '@va/core';
import type { Sign } from '../read-fields';
import {
  childIndexes,
  dayHourGroups,
  monthDayGroups,
  monthEdgeGroups,
  monthHourGroups,
} from '../rollup-children';
import { signOf } from './cube-query';

/** The children read into one slice with one sign: summed as one (merged) section. */
export interface ChildrenRun {
  slice: number | null;
  sign: Sign;
  /** Positions in ChildrenShape.indexes of the run's children. */
  positions: readonly number[];
  /** The run's child indexes, comma-separated: names its merged section beside the rollup's record. */
  id: string;
}

export interface ChildrenShape {
  /** The distinct children, in order of first read. */
  indexes: readonly number[];
  runs: readonly ChildrenRun[];
  /**
   * The set of children as runs of consecutive indexes ("498192-498195,498216-498220"): names the record of
   * these children, so that two reads of one rollup with different children (a request's two reads of a
   * zone's month, two dashboards) each keep their own record instead of replacing the other's on every read.
   */
  id: string;
}

/** `indexes` sorted, as comma-separated runs of consecutive numbers ("1-3,7,9-10"). */
export function rangesId(indexes: readonly number[]): string {
  const sorted = [...indexes].sort((a, b) => a - b);
  const out: string[] = [];
  for (let n = 0; n < sorted.length;) {
    let end = n;
    while (end + 1 < sorted.length && sorted[end + 1]! - sorted[end]! <= 1) end++;
    out.push(sorted[n] === sorted[end] ? `${sorted[n]}` : `${sorted[n]}-${sorted[end]}`);
    n = end + 1;
  }
  return out.join(',');
}

const shapes = new WeakMap<readonly BucketRead[], ChildrenShape>();

/** The distinct children of `reads` (one rollup's) and its runs per (slice, sign), in order of first read. */
export function shapeOf(reads: readonly BucketRead[]): ChildrenShape {
  let shape = shapes.get(reads);
  if (shape) return shape;
  const indexes = childIndexes(reads);
  const position = new Map(indexes.map((index, n) => [index, n]));
  const bySlice = new Map<number | null, { plus?: number[]; minus?: number[] }>();
  const order: { slice: number | null; sign: Sign; positions: number[] }[] = [];
  for (const read of reads) {
    const sign = signOf(read);
    let runs = bySlice.get(read.slice);
    if (!runs) bySlice.set(read.slice, (runs = {}));
    const side = sign === 1 ? 'plus' : 'minus';
    let positions = runs[side];
    if (!positions) {
      positions = runs[side] = [];
      order.push({ slice: read.slice, sign, positions });
    }
    positions.push(position.get(read.index)!);
  }
  const runs = order.map((run) => ({ ...run, id: run.positions.map((p) => indexes[p]).join(',') }));
  shape = { indexes, runs, id: rangesId(indexes) };
  shapes.set(reads, shape);
  return shape;
}

/**
 * A month's day reads, the compacted hour reads of its days and the reads of a billing zone's edges in
 * its compacted days (one array per edge resolution), read as one (rollup-children.ts).
 */
export interface MonthGroup {
  month: number;
  days: BucketRead[];
  hours: BucketRead[];
  edges: BucketRead[][];
}

/** How unitsOf groups a reads array: months with their days and hours, then days with their hours. */
export interface ReadGroups {
  months: MonthGroup[];
  /** The hour reads that go with their month's days. */
  withMonth: ReadonlySet<BucketRead>;
  /** Compacted hours of a day in no grouped month, by day. */
  days: [number, BucketRead[]][];
}

const groupings = new WeakMap<
  readonly BucketRead[],
  { compactedThrough: number | null; groups: ReadGroups }
>();

/** monthDayGroups, monthHourGroups and dayHourGroups of `reads`, once per (reads, compactedThrough). */
export function groupsOf(reads: readonly BucketRead[], compactedThrough: number | null): ReadGroups {
  const held = groupings.get(reads);
  if (held && held.compactedThrough === compactedThrough) return held.groups;
  const grouped = monthDayGroups(reads);
  const monthHours = monthHourGroups(reads, new Set(grouped.keys()), compactedThrough);
  const monthEdges = monthEdgeGroups(reads, new Set(grouped.keys()), compactedThrough);
  const months = [...grouped].map(([month, days]) => ({
    month,
    days,
    hours: monthHours.get(month) ?? [],
    edges: monthEdges.get(month) ?? [],
  }));
  const withMonth = new Set(months.flatMap((m) => m.hours));
  const rest = reads.filter((read) => !withMonth.has(read));
  const groups = { months, withMonth, days: [...dayHourGroups(rest, compactedThrough)] };
  groupings.set(reads, { compactedThrough, groups });
  return groups;
}

const childKeys = new WeakMap<readonly BucketRead[], { record: string; keys: readonly string[] }>();

/**
 * The cache keys of the children of `reads` (ChildrenShape.indexes order), once per reads array and
 * record key (which names the API, its generation and the cube: `keyOf` depends on nothing else).
 */
export function childKeysOf(
  reads: readonly BucketRead[],
  record: string,
  keyOf: (index: number) => string,
): readonly string[] {
  const held = childKeys.get(reads);
  if (held && held.record === record) return held.keys;
  const keys = shapeOf(reads).indexes.map(keyOf);
  childKeys.set(reads, { record, keys });
  return keys;
}

const mergedKeys = new WeakMap<ChildrenRun, { record: string; key: string }>();

/**
 * The cache key of a run's merged section beside the record `record`: the same string for the same
 * run, so that its hash is computed once (a run's key is ~100 characters; a zone month has ~60 runs).
 */
export function mergedKeyOf(run: ChildrenRun, record: string): string {
  const held = mergedKeys.get(run);
  if (held?.record === record) return held.key;
  const key = `${record}:${run.id}`;
  mergedKeys.set(run, { record, key });
  return key;
}

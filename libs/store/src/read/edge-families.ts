/**
 * Billing zones' edges in the read calls (libs/core planner-billing.ts): a local slice is its UTC days plus
 * or minus the edges of the local midnights inside them, so an edge and the buckets of its UTC day must be
 * read in one atomic call. Otherwise an event of the edge's window counted between the two reads would be
 * in one and not the other: a slice short by one, its neighbour over by one. So every family (units.ts
 * chunksOf) that reads the UTC day of an edge — its hours, its day, its month — joins the edge's family.
 * Pure.
 */
import {
  dayOf,
  dayOfHour,
  isEdgeResolution,
  minuteStart,
  monthOfDay,
  monthOfHour,
  type BucketRead,
} from '@va/core';

/**
 * The UTC day (or month) a unit reads. A unit of a rollup's children (an M item: a month's days and hours,
 * or a day's hours, named by its first read) counts as its whole month.
 */
function touched({ read, items }: EdgeUnit): { day?: number; month?: number } {
  if (items.some((item) => item.kind === 'M')) {
    return { month: read.res === 'h' ? monthOfHour(read.index) : monthOfDay(read.index) };
  }
  if (isEdgeResolution(read.res)) return { day: dayOf(minuteStart(read.index)) };
  switch (read.res) {
    case 'h':
      return { day: dayOfHour(read.index) };
    case 'd':
      return { day: read.index };
    case 'm':
      return { month: read.index };
    default:
      return {};
  }
}

/** What edgeFamilies needs of a unit (units.ts Unit). */
interface EdgeUnit {
  read: BucketRead;
  items: readonly { kind: string }[];
}

/**
 * The families to merge: family -> the family it joins (one name per merged group). Empty without edges.
 * `familyOf` is a unit's own family.
 */
export function edgeFamilies<U extends EdgeUnit>(
  units: readonly U[],
  familyOf: (unit: U) => string,
): Map<string, string> {
  const edgeDays = new Set<number>();
  for (const unit of units) if (isEdgeResolution(unit.read.res)) edgeDays.add(touched(unit).day!);
  const parent = new Map<string, string>();
  if (edgeDays.size === 0) return parent;
  const find = (f: string): string => {
    let root = f;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(f, root);
    return root;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  const byDay = new Map<number, string>();
  const edgeMonths = new Map<number, number[]>();
  for (const day of edgeDays) {
    const month = monthOfDay(day);
    edgeMonths.set(month, [...(edgeMonths.get(month) ?? []), day]);
  }
  const join = (day: number, family: string): void => {
    const first = byDay.get(day);
    if (first === undefined) byDay.set(day, family);
    else union(first, family);
  };
  for (const unit of units) {
    const { day, month } = touched(unit);
    const family = familyOf(unit);
    find(family);
    if (day !== undefined && edgeDays.has(day)) join(day, family);
    if (month !== undefined) for (const d of edgeMonths.get(month) ?? []) join(d, family);
  }
  const out = new Map<string, string>();
  for (const f of parent.keys()) out.set(f, find(f));
  return out;
}

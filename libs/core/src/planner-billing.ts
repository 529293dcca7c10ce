/**
 * Day and month slices of an API's declared billing zone (docs/api.md#billing-zones), read from the
 * zone's counted edges and whole UTC days (zone-edges.ts `composeSlice`): exact at any age the UTC days
 * and the edges are kept, with no minute data and no `X-Precision`.
 *
 * Pure. `planByEdges` answers a plan only when every slice of the range can be composed that way: each
 * edge it reads starts at or after the zone's `since` (from there every event was counted in its edges)
 * and is still kept, and each run of UTC days is answered exactly (planReads without slices says
 * 'hour'). Otherwise it answers null and the planner composes the range from UTC hours as for any zone
 * (zone-cover.ts): mixing the two ways in one query could count a UTC day split between two slices
 * twice, so it is all or nothing.
 */
import type { HourGranularity } from '@va/contracts';
import { sliceIndexOfHour, sliceStartOf } from './calendar';
import type { BucketRead, ReadPlan } from './plan-types';
import { DAY_MS, dayOf, HOUR_MS, hourStart, hoursOfDay, type Horizons, type Retention } from './time';
import { edgeAt, type ZoneEdge, type ZoneNumber } from './zone-edges';

/** A declared billing zone as a plan needs it (the query service reads it with the API's meta). */
export interface BillingZonePlan {
  n: ZoneNumber;
  /** Unix ms from which every event of the zone is counted in its edges (the generation's `bz`). */
  since: number;
  /** The first UTC day whose month-start edge (`z<n>m`) is still kept (edgeHorizons). */
  firstMonthEdgeDay: number;
}

/**
 * The first UTC day whose `z<n>m` edge is kept at `now`: such an edge expires at the end of its UTC
 * day plus the month retention. (A `z<n>d` edge expires with its UTC day's rollup: `Horizons.day`.)
 */
export const firstMonthEdgeDay = (now: number, retention: Retention): number =>
  Math.floor((now - retention.monthMs) / DAY_MS);

/** What planByEdges needs of the planner's input. */
export interface EdgePlanInput {
  startHour: number;
  endHour: number;
  granularity?: HourGranularity;
  horizons: Horizons;
  /** Hours outside [lo, dataEnd] hold nothing (planner.ts's `lo` and `dataEnd`): no bucket keeps one before lo. */
  lo: number;
  dataEnd: number;
  /** Exactly planReads for a run of UTC hours without slices (the UTC planner). */
  planUtc(startHour: number, endHour: number): ReadPlan;
}

/** Whether an edge can be read: counted whole since `since`, and still kept. */
function usable(edge: ZoneEdge, billing: BillingZonePlan, hz: Horizons): boolean {
  if (edge.from < billing.since) return false;
  const day = dayOf(edge.x);
  return edge.res.endsWith('m') ? day >= billing.firstMonthEdgeDay : day >= hz.day;
}

/**
 * The events before instant t as a run of UTC hours and an edge: those before hour `hour`, plus (`sign`
 * 1) or minus (-1) the edge's. At a local midnight with a usable edge, the hour is a UTC midnight (the
 * run stays in whole UTC days, which are kept longest); else t must be an hour boundary.
 */
interface Before {
  hour: number;
  edge?: ZoneEdge;
  sign?: 1 | -1;
}

function before(
  t: number,
  zone: string,
  billing: BillingZonePlan,
  hz: Horizons,
  midnight: boolean,
): Before | null {
  const edge = midnight ? edgeAt(zone, billing.n, t) : null;
  if (edge && usable(edge, billing, hz)) {
    return edge.side === 'tail'
      ? { hour: hoursOfDay(dayOf(t) + 1)[0], edge, sign: -1 }
      : { hour: hoursOfDay(dayOf(t))[0], edge, sign: 1 };
  }
  return t % HOUR_MS === 0 ? { hour: t / HOUR_MS } : null;
}

/**
 * The reads of one slice's counted part [l, u) (its start and end, or the range's hour boundaries where
 * the range starts or ends inside it): before(u) - before(l). Null when it cannot be composed exactly.
 */
function sliceReads(
  input: EdgePlanInput,
  zone: string,
  billing: BillingZonePlan,
  slice: number,
  [l, lMidnight]: [number, boolean],
  [u, uMidnight]: [number, boolean],
): BucketRead[] | null {
  const hz = input.horizons;
  const from = before(l, zone, billing, hz, lMidnight);
  const to = before(u, zone, billing, hz, uMidnight);
  if (!from || !to) return null;
  const reads: BucketRead[] = [];
  const edge = (e: ZoneEdge, subtract: boolean) =>
    reads.push(
      subtract
        ? { res: e.res, index: e.index, slice, subtract: true }
        : { res: e.res, index: e.index, slice },
    );
  if (to.edge) edge(to.edge, to.sign === -1);
  if (from.edge) edge(from.edge, from.sign === 1);
  // The hours between the two bounds, added (or subtracted, where the range ends inside a tail).
  const [first, last, subtract] =
    from.hour <= to.hour ? [from.hour, to.hour - 1, false] : [to.hour, from.hour - 1, true];
  const lastRead = Math.min(last, input.dataEnd);
  if (first > lastRead) return reads;
  if (first < input.lo) return null; // the run reaches hours no bucket keeps any more
  const utc = input.planUtc(first, lastRead);
  if (utc.precision !== 'hour' || utc.edgesOnHours === false) return null;
  for (const read of utc.reads) {
    const negative = subtract !== (read.subtract === true);
    reads.push(
      negative
        ? { res: read.res, index: read.index, slice, subtract: true }
        : { res: read.res, index: read.index, slice },
    );
  }
  return reads;
}

/** The plan of a range's day or month slices in a declared billing zone, or null (see the header). */
export function planByEdges(input: EdgePlanInput, zone: string, billing: BillingZonePlan): ReadPlan | null {
  const g = input.granularity;
  if (g !== 'day' && g !== 'month') return null;
  const endHour = Math.min(input.endHour, input.dataEnd);
  const reads: BucketRead[] = [];
  if (input.startHour > endHour) return { reads, precision: 'hour' };
  const start = hourStart(input.startHour);
  const end = hourStart(endHour + 1);
  for (
    let i = sliceIndexOfHour(input.startHour, g, zone), last = sliceIndexOfHour(endHour, g, zone);
    i <= last;
    i++
  ) {
    const x = sliceStartOf(i, g, zone);
    const y = sliceStartOf(i + 1, g, zone);
    const l: [number, boolean] = x >= start ? [x, true] : [start, false];
    const u: [number, boolean] = y <= end ? [y, true] : [end, false];
    if (l[0] >= u[0]) continue;
    const slice = sliceReads(input, zone, billing, x, l, u);
    if (!slice) return null;
    reads.push(...slice);
  }
  return { reads, precision: 'hour' };
}

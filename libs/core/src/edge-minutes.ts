/**
 * Slice edges inside a UTC hour, split exactly by minute buckets (docs/api.md#time-zones). In a zone
 * whose offset is not a whole hour a local midnight falls inside a UTC hour H (Asia/Kolkata: 18:30Z);
 * the cover (zone-cover.ts) counts H whole in the slice holding its start. Minute buckets hold every
 * event of a minute still within the minute retention (an event reaching the worker later than that is
 * after now), so while all of H's minutes are kept the hour is split at the edge: the minutes before it
 * count in the earlier slice, the others in the later one. An edge whose hour has a minute past the
 * retention stays whole in the earlier slice, and the answer says X-Precision: hour.
 *
 * Pure. Per split edge, the fewer minute reads of:
 *   - the minutes from the edge on: subtracted from the earlier slice, added to the later one;
 *   - the minutes before the edge: H moved whole to the later slice (its hour bucket subtracted from
 *     the earlier slice, added to the later), and those minutes moved back.
 * A minute is read once however many slices count it. Where the later slice is not a row (the
 * range's last hour holds the edge: rows end with the slice holding that hour's start), the
 * minutes from the edge on count nowhere: each row counts exactly its own instants.
 */
import type { BucketRead } from './plan-types';
import { midHourEdges } from './calendar';
import { HOUR_MS, MINUTE_MS, hourOf, type Horizons } from './time';

/** What splitting asks of the planner (planner.ts `Plan`). */
export interface EdgePlan {
  /** The range's hours, inclusive. */
  readonly a: number;
  readonly b: number;
  readonly hz: Horizons;
  /** Hours after this one hold nothing. */
  readonly dataEnd: number;
  /** The first minute whose bucket holds every event of it (planner.ts PlanInput); undefined: none. */
  readonly firstMinuteKept: number | undefined;
  /** Start (ms) of the slice of hour h: the slice holding its start. */
  sliceOf(h: number): number;
  /** Whether hour h's own bucket still holds it. */
  inHourBucket(h: number): boolean;
}

export interface EdgeSplit {
  reads: BucketRead[];
  /** Every mid-hour edge of the range is split: no X-Precision: hour. */
  exact: boolean;
}

/** Whether the minute buckets split the edge at `edge` (ms), inside hour H: all of H's minutes are kept. */
export function splitsEdge(edge: number, firstMinuteKept: number | undefined): boolean {
  const h = hourOf(edge);
  return firstMinuteKept !== undefined && h * 60 >= firstMinuteKept && edge % MINUTE_MS === 0;
}

/** The reads that split the mid-hour edges of the range, and whether every one of them is split. */
export function splitEdges(p: EdgePlan, g: 'day' | 'month', zone: string): EdgeSplit {
  const reads: BucketRead[] = [];
  let exact = true;
  for (const edge of midHourEdges(p.a, p.b, g, zone)) {
    const h = hourOf(edge);
    // Past the hour retention the hour is a rollup's, whose precision the answer states already.
    if (!splitsEdge(edge, p.firstMinuteKept) || h < p.hz.hour) {
      exact = false;
      continue;
    }
    if (h > p.dataEnd) continue; // nothing there to split
    reads.push(...splitReads(p, h, edge));
  }
  return { reads, exact };
}

function splitReads(p: EdgePlan, h: number, edge: number): BucketRead[] {
  const earlier = p.sliceOf(h);
  const later = h < p.b && p.sliceOf(h + 1) === edge ? edge : null;
  const first = h * 60;
  const before = (edge - h * HOUR_MS) / MINUTE_MS;
  const out: BucketRead[] = [];
  const move = (n: number, from: number | null, to: number | null) => {
    if (from !== null) out.push({ res: 'n', index: n, slice: from, subtract: true });
    if (to !== null) out.push({ res: 'n', index: n, slice: to });
  };
  if (before < 60 - before && p.inHourBucket(h)) {
    out.push({ res: 'h', index: h, slice: earlier, subtract: true });
    if (later !== null) out.push({ res: 'h', index: h, slice: later });
    for (let n = first; n < first + before; n++) move(n, later, earlier);
  } else {
    for (let n = first + before; n < first + 60; n++) move(n, earlier, later);
  }
  return out;
}

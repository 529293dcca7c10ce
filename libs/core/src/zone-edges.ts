/**
 * Billing zones (docs/api.md#billing-zones): what the worker counts for an API's declared zone so that
 * its local days and months are exact over the whole day and month retention, and how a reader
 * composes a local slice from it. Pure.
 *
 * A local midnight x of a declared zone falls inside some UTC day D (or on its first instant). The UTC
 * day rollup of D holds D's counts; what it cannot say is how they split at x. So the worker counts,
 * per declared zone and local midnight x, the **edge** of x: the events of the shorter side of D cut
 * at x, either its **head** [start of D, x) or its **tail** [x, end of D). Then every local slice
 * [x, y) is exact from UTC days and two edges, at any age the UTC days are kept:
 *
 *     count[x, y) = count[R] + (x: tail(x), or - head(x)) + (y: head(y), or - tail(y))
 *
 * where R is the run of whole UTC days from the day after x's day (tail) or x's day (head) up to the
 * day before y's day (head) or y's day (tail). A midnight at a UTC midnight needs no edge. A Kolkata
 * day (midnight at 18:30 UTC) is one UTC day and two tails of 5.5 hours; a New York day (05:00 UTC) is
 * one UTC day and two heads of 5 hours; a local month is its UTC month and two edges.
 *
 * Why edges and not whole local days and months counted at ingest: an edge holds at most half a UTC
 * day of events (a whole-hour zone's edges hold 0–12 of its 24 hours), one bucket per zone instead of
 * a day and a month, and a local day read is three buckets either way.
 *
 * Edges are buckets of their own resolution: `z<n>d` (the edge of a midnight that starts a local day
 * but not a month: kept for the day retention) and `z<n>m` (a midnight that starts a local month: kept
 * for the month retention, since local months are read that long), n = the zone's number 1–3 in the
 * API's declaration. The bucket index is the minute of x (minuteOf); the bucket ends with its UTC day.
 */
import { localDayOf, localDayStart, localMonthOf, localMonthStart } from './calendar';
import { bucketEnd, DAY_MS, dayOf, dayStart, HOUR_MS, minuteOf, type EdgeResolution } from './time';

export type { EdgeResolution };

/** How many billing zones an API may declare. */
export const MAX_BILLING_ZONES = 3;

export type ZoneNumber = 1 | 2 | 3;

export interface ZoneEdge {
  /** The local midnight (unix ms). */
  x: number;
  res: EdgeResolution;
  /** minuteOf(x): the bucket's index. */
  index: number;
  /** head: the events of [start of x's UTC day, x); tail: those of [x, end of x's UTC day). */
  side: 'head' | 'tail';
  /** The window counted, [from, to) in unix ms. */
  from: number;
  to: number;
}

export const edgeResolution = (n: ZoneNumber, monthStart: boolean): EdgeResolution =>
  `z${n}${monthStart ? 'm' : 'd'}`;

/** Whether a bucket resolution names a zone edge (and which zone and family). */
export function parseEdgeResolution(res: string): { n: ZoneNumber; family: 'd' | 'm' } | null {
  const match = /^z([123])([dm])$/.exec(res);
  return match ? { n: Number(match[1]) as ZoneNumber, family: match[2] as 'd' | 'm' } : null;
}

/** End (unix ms, exclusive) of edge bucket `index`: the end of the UTC day of its midnight. */
export const edgeBucketEnd = (index: number): number => bucketEnd('z1d', index);

/**
 * The edge of local midnight x of zone number n, or null when x is a UTC midnight (no edge: the UTC
 * days split there already). x must be a local day start (calendar.ts localDayStart).
 */
export function edgeAt(zone: string, n: ZoneNumber, x: number): ZoneEdge | null {
  const d0 = dayStart(dayOf(x));
  if (x === d0) return null;
  const side = x - d0 < DAY_MS / 2 ? 'head' : 'tail';
  const monthFirst = localMonthStart(zone, localMonthOf(zone, x)) === x;
  return {
    x,
    res: edgeResolution(n, monthFirst),
    index: minuteOf(x),
    side,
    from: side === 'head' ? d0 : x,
    to: side === 'head' ? x : d0 + DAY_MS,
  };
}

/**
 * Whether edge e's window holds the whole of UTC hour h. Such an hour's events are all in the edge, so the
 * worker counts the hour's tuples in the edge as it counts them in the hour (aggregate.ts expand), and
 * only the events of an hour the window cuts (Kolkata's 18:00-19:00) one by one (EdgeFinder.cut).
 */
export const holdsHour = (e: ZoneEdge, h: number): boolean =>
  e.from <= h * HOUR_MS && (h + 1) * HOUR_MS <= e.to;

/** The edges of the local midnights inside UTC day d (one, rarely none or two around a DST change). */
export function edgesOfUtcDay(zone: string, n: ZoneNumber, d: number): ZoneEdge[] {
  const out: ZoneEdge[] = [];
  const from = dayStart(d);
  const to = from + DAY_MS;
  for (let local = localDayOf(zone, from); ; local++) {
    const x = localDayStart(zone, local);
    if (x >= to) break;
    if (x < from) continue;
    const edge = edgeAt(zone, n, x);
    if (edge) out.push(edge);
  }
  return out;
}

/**
 * The edges whose window holds instant t, for the worker: it counts the event in each. Remembers the
 * edges of the last UTC day asked, since a batch's events mostly share their day.
 */
export class EdgeFinder {
  private day = NaN;
  private edges: ZoneEdge[] = [];

  constructor(
    readonly zone: string,
    readonly n: ZoneNumber,
  ) {}

  /** The edges whose window holds t (usually none or one). */
  at(t: number): ZoneEdge[] {
    const d = dayOf(t);
    if (d !== this.day) {
      this.day = d;
      this.edges = edgesOfUtcDay(this.zone, this.n, d);
    }
    if (this.edges.length === 0) return this.edges;
    return this.edges.filter((e) => t >= e.from && t < e.to);
  }

  /** The edges whose window holds t but not the whole of its UTC hour (at most two: usually none). */
  cut(t: number): ZoneEdge[] {
    const edges = this.at(t);
    if (edges.length === 0) return edges;
    const h = Math.floor(t / HOUR_MS);
    return edges.filter((e) => !holdsHour(e, h));
  }

  /** The edges whose window holds the whole of UTC hour h (usually none or one). */
  wholeHour(h: number): ZoneEdge[] {
    const edges = this.at(h * HOUR_MS);
    if (edges.length === 0) return edges;
    return edges.filter((e) => holdsHour(e, h));
  }
}

/** A signed read of an edge bucket. */
export interface EdgeRead {
  edge: ZoneEdge;
  subtract: boolean;
}

/**
 * How a local slice [x, y) (both local midnights) is composed: its edges' signed reads and the run of
 * whole UTC days [firstDay, lastDay] to add (empty when firstDay > lastDay). See the header.
 */
export function composeSlice(
  zone: string,
  n: ZoneNumber,
  x: number,
  y: number,
): { edges: EdgeRead[]; firstDay: number; lastDay: number } {
  const edges: EdgeRead[] = [];
  let firstDay = dayOf(x);
  const left = edgeAt(zone, n, x);
  if (left?.side === 'tail') {
    edges.push({ edge: left, subtract: false });
    firstDay++;
  } else if (left) edges.push({ edge: left, subtract: true });
  let lastDay = dayOf(y) - 1;
  const right = edgeAt(zone, n, y);
  if (right?.side === 'tail') {
    edges.push({ edge: right, subtract: true });
    lastDay++;
  } else if (right) edges.push({ edge: right, subtract: false });
  return { edges, firstDay, lastDay };
}

/**
 * How the planner reads one slice of a time zone's calendar (docs/api.md#time-zones): a local day
 * or month is a run of UTC hours that starts and ends inside UTC days, so it is covered with UTC
 * months, days and hours, reading a rollup and subtracting the hours outside the slice where that
 * takes fewer reads than adding hours. A New York day (UTC-5) is its UTC day minus that day's
 * hours 00–04, plus the next day's hours 00–04: 11 reads instead of 24.
 *
 * Pure. Per UTC month the slice touches, the cheapest valid of:
 *   - by days: per UTC day, the fewer reads of (its wanted hours) and (the day, minus its held
 *     hours not wanted, plus its wanted hours the day does not hold);
 *   - by the month (only when the slice holds at least half of it, or a wanted hour exists in
 *     the month rollup alone): the month, and per day of it the fewer reads of (minus its held
 *     hours not wanted) and (minus the day, plus its held hours wanted), plus the wanted hours
 *     the month does not hold.
 * Which hours are wanted, and where a rollup holds an hour, the planner says (`CoverPlan`); an
 * hour subtracted or added alone must still have its hour bucket (at most the hour retention old,
 * or not compacted yet).
 */
import type { HourGranularity } from '@va/contracts';
import { sliceIndexOfHour, sliceStartOf } from './calendar';
import { splitEdges, type EdgePlan } from './edge-minutes';
import type { BucketRead } from './plan-types';
import {
  dayOfHour,
  HOUR_MS,
  hoursOfDay,
  hoursOfMonth,
  monthOfHour,
  type Horizons,
  type Resolution,
} from './time';

/** What the cover asks of the planner (planner.ts `Plan`). */
export interface CoverPlan {
  /** The slice (key) whose counts include hour h, or undefined. */
  owner(h: number): number | undefined;
  /** Whether the day and month rollups hold hour h (it is compacted). */
  inRollups(h: number): boolean;
  readonly hz: Horizons;
  /** Hours outside [lo, dataEnd] hold nothing. */
  readonly lo: number;
  readonly dataEnd: number;
}

export interface SignedRead {
  res: Resolution;
  index: number;
  subtract: boolean;
}

/** One UTC day as a slice sees it: which of its hours (that can hold data) are wanted and held. */
interface Day {
  d: number;
  /** Wanted hours the rollups hold / do not hold; held hours not wanted. */
  wantedHeld: number[];
  wantedLoose: number[];
  unwantedHeld: number[];
}

const add = (res: Resolution, index: number): SignedRead => ({ res, index, subtract: false });
const sub = (res: Resolution, index: number): SignedRead => ({ res, index, subtract: true });

function dayOf(p: CoverPlan, slice: number, d: number): Day {
  const [d0, d1] = hoursOfDay(d);
  const day: Day = { d, wantedHeld: [], wantedLoose: [], unwantedHeld: [] };
  for (let h = Math.max(d0, p.lo); h <= Math.min(d1, p.dataEnd); h++) {
    const held = p.inRollups(h);
    if (p.owner(h) === slice) (held ? day.wantedHeld : day.wantedLoose).push(h);
    else if (held) day.unwantedHeld.push(h);
  }
  return day;
}

/** An hour read on its own: its bucket must exist (inside hour retention, or not compacted). */
const hasBucket = (p: CoverPlan, h: number): boolean => h >= p.hz.hour || !p.inRollups(h);
const allHaveBuckets = (p: CoverPlan, hours: number[]): boolean => hours.every((h) => hasBucket(p, h));

/** A day's reads without its month, or null when its wanted hours need the month rollup. */
function byDay(p: CoverPlan, day: Day): SignedRead[] | null {
  const wanted = day.wantedHeld.length + day.wantedLoose.length;
  if (wanted === 0) return [];
  const hours = allHaveBuckets(p, day.wantedHeld)
    ? [...day.wantedHeld, ...day.wantedLoose].sort((x, y) => x - y).map((h) => add('h', h))
    : null;
  const viaDay =
    day.d >= p.hz.day && day.wantedHeld.length > 0 && allHaveBuckets(p, day.unwantedHeld)
      ? [
          add('d', day.d),
          ...day.unwantedHeld.map((h) => sub('h', h)),
          ...day.wantedLoose.map((h) => add('h', h)),
        ]
      : null;
  if (hours && (!viaDay || hours.length <= viaDay.length)) return hours;
  return viaDay;
}

/** What a day needs beside its month's rollup, or null when nothing valid does it. */
function besideMonth(p: CoverPlan, day: Day): SignedRead[] | null {
  const loose = day.wantedLoose.map((h) => add('h', h));
  const minusHours = allHaveBuckets(p, day.unwantedHeld) ? day.unwantedHeld.map((h) => sub('h', h)) : null;
  const minusDay =
    day.d >= p.hz.day && day.unwantedHeld.length > 0 && allHaveBuckets(p, day.wantedHeld)
      ? [sub('d', day.d), ...day.wantedHeld.map((h) => add('h', h))]
      : null;
  const best = minusHours && (!minusDay || minusHours.length <= minusDay.length) ? minusHours : minusDay;
  return best && [...best, ...loose];
}

function byMonth(p: CoverPlan, slice: number, m: number, known: Map<number, Day>): SignedRead[] | null {
  const [m0, m1] = hoursOfMonth(m);
  const out = [add('m', m)];
  for (let d = dayOfHour(Math.max(m0, p.lo)); d <= dayOfHour(Math.min(m1, p.dataEnd)); d++) {
    const reads = besideMonth(p, known.get(d) ?? dayOf(p, slice, d));
    if (!reads) return null;
    out.push(...reads);
  }
  return out;
}

/** Signed reads that count exactly the hours owned by `slice` within [from, to]. */
export function coverSlice(p: CoverPlan, slice: number, from: number, to: number): SignedRead[] {
  const out: SignedRead[] = [];
  const lo = Math.max(from, p.lo);
  const hi = Math.min(to, p.dataEnd);
  if (lo > hi) return out;
  for (let m = monthOfHour(lo), last = monthOfHour(hi); m <= last; m++) {
    const [m0, m1] = hoursOfMonth(m);
    const known = new Map<number, Day>();
    let days: SignedRead[] | null = [];
    for (let d = dayOfHour(Math.max(lo, m0)); d <= dayOfHour(Math.min(hi, m1)); d++) {
      const day = dayOf(p, slice, d);
      known.set(d, day);
      const reads = days && byDay(p, day);
      if (reads) days!.push(...reads);
      else days = null;
    }
    const span = Math.min(hi, m1) - Math.max(lo, m0) + 1;
    const month = m >= p.hz.month && (!days || 2 * span >= m1 - m0 + 1) ? byMonth(p, slice, m, known) : null;
    const chosen = month && (!days || month.length < days.length) ? month : days;
    if (!chosen) throw new Error(`planner: month ${m} of slice ${slice} has no valid cover`);
    out.push(...chosen);
  }
  return out;
}

/** What planning a zone's slices asks of the planner besides the cover. */
export interface ZonedPlan extends CoverPlan, EdgePlan {
  readonly g: HourGranularity | undefined;
  /** Whether a rollup counted in `slice` reaches beyond it or the range. */
  widened(res: 'd' | 'm', first: number, last: number, slice: number): boolean;
  /** The slice a rollup answering past-horizon hours counts in, from its first requested hour. */
  rollupSlice(anchor: number): number;
  /** The days, and months, answering requested hours past the hour horizon (empty: first > last). */
  readonly sdFirst: number;
  readonly sdLast: number;
  readonly smFirst: number;
  readonly smLast: number;
}

/** Rollups answering past-horizon hours ([res, first hour, last hour]), by the slice they count in. */
function rollupsBySlice(p: ZonedPlan): Map<number, [Resolution, number, number][]> {
  const out = new Map<number, [Resolution, number, number][]>();
  const note = (res: Resolution, [first, last]: [number, number]) => {
    const slice = p.rollupSlice(Math.max(first, p.a));
    out.set(slice, [...(out.get(slice) ?? []), [res, first, last]]);
  };
  for (let x = p.sdFirst; x <= p.sdLast; x++) note('d', hoursOfDay(x));
  for (let y = p.smFirst; y <= p.smLast; y++) note('m', hoursOfMonth(y));
  return out;
}

/** Hour ranges [first, last] of the zone's slices, clamped to where data can be; a slice's hours start in it. */
function zonedSlices(p: ZonedPlan, g: 'day' | 'month', zone: string): [number, number][] {
  const from = Math.max(p.a, p.lo);
  const to = Math.min(p.b, p.dataEnd);
  const out: [number, number][] = [];
  if (from > to) return out;
  for (let i = sliceIndexOfHour(from, g, zone), last = sliceIndexOfHour(to, g, zone); i <= last; i++) {
    const first = Math.max(from, Math.ceil(sliceStartOf(i, g, zone) / HOUR_MS));
    const end = Math.min(to, Math.ceil(sliceStartOf(i + 1, g, zone) / HOUR_MS) - 1);
    if (first <= end) out.push([first, end]); // a day the zone skipped has no hours
  }
  return out;
}

const RANK: Record<HourGranularity, number> = { hour: 0, day: 1, month: 2 };

/** planReads for the day or month slices of a zone other than UTC (the planner's ReadPlan). */
export function planZoned(p: ZonedPlan, zone: string) {
  const g = p.g === 'month' ? 'month' : 'day';
  const reads: BucketRead[] = [];
  let precision: HourGranularity = 'hour';
  const rollups = rollupsBySlice(p);
  for (const [first, last] of zonedSlices(p, g, zone)) {
    const slice = p.sliceOf(first);
    // The slice also counts the rollups answering past-horizon hours that count in it: whole.
    let from = first;
    let to = last;
    for (const [res, r0, r1] of rollups.get(slice) ?? []) {
      from = Math.min(from, r0);
      to = Math.max(to, r1);
      const widened = res === 'm' ? 'month' : 'day';
      if (p.widened(res === 'm' ? 'm' : 'd', r0, r1, slice) && RANK[widened] > RANK[precision])
        precision = widened;
    }
    for (const r of coverSlice(p, slice, from, to)) {
      reads.push(
        r.subtract
          ? { res: r.res, index: r.index, slice, subtract: true }
          : { res: r.res, index: r.index, slice },
      );
    }
  }
  // Slice edges inside a UTC hour: split by minute buckets where they keep the hour (edge-minutes.ts).
  const edges = splitEdges(p, g, zone);
  reads.push(...edges.reads);
  return { reads, precision, ...(!edges.exact && { edgesOnHours: false as const }) };
}

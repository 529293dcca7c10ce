/**
 * Read planning (docs/api.md#retention, docs/rollups.md): which buckets answer each slice of a query.
 *
 * What a rollup holds. A day or month bucket holds exactly the hours that are "in the
 * rollups": hours already compacted (h <= compactedThrough; later events of those hours are
 * added to the rollups by the ingest script in the same atomic step). Every other hour lives
 * only in its hour bucket, which is kept until it is compacted, even past the hour horizon:
 * a past-horizon hour not compacted yet is read from its hour bucket beside its rollup.
 *
 * Where an hour's counts belong (the same rule as the oracle, libs/core/src/oracle/retention.ts):
 *   - an hour of the range still kept at hour resolution: its own slice, exactly;
 *   - otherwise, when a day bucket that is still kept holds a requested hour past the hour
 *     horizon: the whole day counts once, in the slice of its first hour (clipped to start);
 *   - otherwise, the same with the month bucket when the day is gone too;
 *   - otherwise nowhere (nothing keeps it any more).
 * A widened day or month (one that reaches outside the range, or spans several slices)
 * makes the precision 'day' or 'month'.
 *
 * How a slice's hours are read: whole months and then whole days whose hours are all in the
 * rollups from their month / day bucket, the rest from hour buckets. A widened rollup is read
 * once and completed with the hour buckets it lacks; when some of its hours are counted in
 * another slice (groupBy=hour over the day past the horizon), those hours are subtracted
 * from it (reads with `subtract: true`), so every hour is counted exactly once per query.
 *
 * Day and month slices of a time zone other than UTC (docs/api.md#time-zones) are runs of UTC
 * hours; zone-cover.ts covers them, with the same owner rule: a rollup answering past-horizon
 * hours counts in the local slice of its date, kept within the range. Where a slice edge falls inside
 * a UTC hour still kept in minute buckets, edge-minutes.ts splits that hour at the edge.
 */
import type { HourGranularity } from '@va/contracts';
import { isUtc, SliceCursor, sliceIndexOfHour, sliceStartOf } from './calendar';
import {
  dayOfHour,
  dayStart,
  hourStart,
  hoursOfDay,
  hoursOfMonth,
  monthOfHour,
  monthStart,
  type Resolution,
  type Horizons,
} from './time';
import type { BucketRead, Precision, ReadPlan } from './plan-types';
import { planByEdges, type BillingZonePlan } from './planner-billing';
import { earliestRetainedHour, inHourBucket, inRollups } from './bucket-holds';
import { planZoned } from './zone-cover';

export type { BucketRead, Precision, ReadPlan } from './plan-types';
export { firstMonthEdgeDay, type BillingZonePlan } from './planner-billing';
export { earliestRetainedHour, hoursOfBucket, inHourBucket, inRollups } from './bucket-holds';
export { edgeMinuteSlices, minuteSlices, planMinuteReads, type MinutePlanInput } from './planner-minutes';

export interface PlanInput {
  /** Hour indices, inclusive. */
  startHour: number;
  endHour: number;
  granularity?: HourGranularity;
  /** The API's `cmp`: last hour compacted into the rollups; null = none yet. */
  compactedThrough: number | null;
  horizons: Horizons;
  /**
   * Optional: no hour after this one can hold data (e.g. the hour of now + 5 minutes).
   * Hour reads stop there, so that an open-ended range (end in year 9999) stays cheap.
   */
  dataThroughHour?: number;
  /**
   * IANA zone of day and month slices (docs/api.md#time-zones); absent or UTC: UTC. Hour slices
   * and answers without a time granularity do not depend on it.
   */
  timeZone?: string;
  /**
   * The first minute (minute index) whose bucket still holds every event of it: firstMinuteKept(now,
   * retention) where minute buckets are written. Day and month slices of a zone split a UTC hour at
   * their edge by minute buckets when all its minutes are from this one on (edge-minutes.ts); absent:
   * no hour is split. Only whole hours matter, so any minute of the hour holding firstMinuteKept up to
   * the next hour's first plans the same (the query service passes the latter: one plan per hour).
   */
  firstMinuteKept?: number;
  /**
   * When `timeZone` is one of the API's declared billing zones: its number and since when its edges are
   * counted. Day and month slices are then composed from UTC days and the zone's edges where those are
   * kept (planner-billing.ts), exact with no minute data.
   */
  billingZone?: BillingZonePlan;
}

const RANK: Record<Precision, number> = { hour: 0, day: 1, month: 2 };
const coarser = (a: Precision, b: Precision): Precision => (RANK[a] >= RANK[b] ? a : b);

/** The query as the planner sees it; slices are keyed by their start (0 without granularity). */
class Plan {
  readonly a: number;
  readonly b: number;
  readonly g: HourGranularity | undefined;
  readonly cmp: number | null;
  readonly hz: Horizons;
  /** Hours outside [lo, dataEnd] hold nothing. */
  readonly lo: number;
  readonly dataEnd: number;
  readonly sdFirst: number;
  readonly sdLast: number;
  readonly smFirst: number;
  readonly smLast: number;
  /** The zone of day or month slices when it is not UTC (then `cursor` finds them). */
  readonly zone: string | undefined;
  readonly firstMinuteKept: number | undefined;
  private readonly cursor: SliceCursor | undefined;
  /** Numbers of the slices of a and b (zones), found when first asked. */
  private rangeSlices: [number, number] | undefined;

  constructor(input: PlanInput) {
    this.a = input.startHour;
    this.b = input.endHour;
    this.g = input.granularity;
    this.cmp = input.compactedThrough;
    this.hz = input.horizons;
    this.lo = earliestRetainedHour(this.hz);
    // Never cut below what the rollups already hold: whole-bucket decisions look that far.
    this.dataEnd =
      input.dataThroughHour === undefined
        ? Infinity
        : Math.max(input.dataThroughHour, this.cmp ?? -Infinity, this.hz.hour - 1);
    // Requested hours past the hour horizon: [a, hz.hour - 1]; those whose day is gone too:
    // [a, first hour of hz.day - 1]. An empty run has first > last.
    const pastHour = Math.min(this.b, this.hz.hour - 1);
    this.sdFirst = Math.max(dayOfHour(this.a), this.hz.day);
    this.sdLast = this.a <= pastHour ? dayOfHour(pastHour) : -Infinity;
    const pastDay = Math.min(pastHour, hoursOfDay(this.hz.day)[0] - 1);
    this.smFirst = Math.max(monthOfHour(this.a), this.hz.month);
    this.smLast = this.a <= pastDay ? monthOfHour(pastDay) : -Infinity;
    const g = this.g;
    this.zone = (g === 'day' || g === 'month') && !isUtc(input.timeZone) ? input.timeZone : undefined;
    this.cursor = this.zone && g ? new SliceCursor(g, this.zone) : undefined;
    this.firstMinuteKept = input.firstMinuteKept;
  }

  /** Month of an hour, remembered: the planner walks hours in order, so the last month nearly always hits. */
  private month = { m: 0, first: 0, last: -1 };
  monthAt(h: number): number {
    if (h < this.month.first || h > this.month.last) {
      const m = monthOfHour(h);
      const [first, last] = hoursOfMonth(m);
      this.month = { m, first, last };
    }
    return this.month.m;
  }

  sliceOf(h: number): number {
    if (this.cursor) return this.cursor.startOfHour(h);
    switch (this.g) {
      case undefined:
        return 0;
      case 'hour':
        return hourStart(h);
      case 'day':
        return dayStart(dayOfHour(h));
      case 'month':
        this.monthAt(h);
        return monthStart(this.month.m);
    }
  }

  inRollups(h: number): boolean {
    return inRollups(h, this.cmp);
  }

  inHourBucket(h: number): boolean {
    return inHourBucket(h, this.cmp, this.hz);
  }

  /**
   * Day d answers requested hours past the hour horizon: it is kept and its first requested
   * hour is past the horizon. Those days form one run [sdFirst, sdLast] at the start of the
   * range; likewise the months answering past-horizon hours whose day is gone.
   */
  dayAnswers(d: number): boolean {
    return d >= this.sdFirst && d <= this.sdLast;
  }

  monthAnswers(m: number): boolean {
    return m >= this.smFirst && m <= this.smLast;
  }

  /** The slice (key) whose counts include hour h, or undefined. See the header. */
  owner(h: number): number | undefined {
    if (h >= this.a && h <= this.b && h >= this.hz.hour) return this.sliceOf(h);
    const d = dayOfHour(h);
    if (this.dayAnswers(d)) return this.rollupSlice(Math.max(hoursOfDay(d)[0], this.a));
    const m = this.monthAt(h);
    if (this.monthAnswers(m)) return this.rollupSlice(Math.max(this.month.first, this.a));
    return undefined;
  }

  /**
   * The slice a rollup answering past-horizon hours counts in, from its first requested hour: in
   * UTC that hour's slice; in a zone the local day (month) of the same date as that UTC hour,
   * kept within the range's slices (docs/api.md#time-zones).
   */
  rollupSlice(anchor: number): number {
    if (!this.zone || !this.g) return this.sliceOf(anchor);
    const date = this.g === 'day' ? dayOfHour(anchor) : monthOfHour(anchor);
    this.rangeSlices ??= [
      sliceIndexOfHour(this.a, this.g, this.zone),
      sliceIndexOfHour(this.b, this.g, this.zone),
    ];
    const [first, last] = this.rangeSlices;
    return sliceStartOf(Math.max(first, Math.min(last, date)), this.g, this.zone);
  }

  /** Whether a rollup that answers past-horizon hours reaches beyond its slice or the range. */
  widened(res: 'd' | 'm', first: number, last: number, slice?: number): boolean {
    if (this.zone) {
      const out = first < this.a || last > this.b;
      return out || this.sliceOf(first) !== slice || this.sliceOf(last) !== slice;
    }
    const finer = res === 'd' ? this.g === 'hour' : this.g === 'hour' || this.g === 'day';
    return finer || first < this.a || last > this.b;
  }
}

interface Signed {
  res: Resolution;
  index: number;
  subtract: boolean;
}

/** Per-hour flags of one day: does slice S want the hour, does a rollup hold it. */
interface DayWant {
  d: number;
  first: number;
  last: number;
  want: boolean[];
  any: boolean;
  /** A wanted hour past the hour horizon: only a rollup can answer it. */
  pastHorizon: boolean;
}

function dayWants(p: Plan, slice: number, d: number, from: number, to: number): DayWant {
  const [d0, d1] = hoursOfDay(d);
  const first = Math.max(d0, from);
  const last = Math.min(d1, to);
  const want: boolean[] = [];
  let any = false;
  let pastHorizon = false;
  for (let h = first; h <= last; h++) {
    const w = p.owner(h) === slice;
    want.push(w);
    any ||= w;
    pastHorizon ||= w && h < p.hz.hour;
  }
  return { d, first, last, want, any, pastHorizon };
}

/** After reading a rollup: subtract the rollup hours not wanted, add the wanted hours it lacks. */
function complete(p: Plan, day: DayWant, out: Signed[], wholeDayMayGo: boolean): void {
  let rollupHours = 0;
  let unwantedRollup = 0;
  for (let h = day.first; h <= day.last; h++) {
    if (!p.inRollups(h)) continue;
    rollupHours++;
    if (!day.want[h - day.first]) unwantedRollup++;
  }
  const dropWholeDay =
    wholeDayMayGo && rollupHours > 0 && unwantedRollup === rollupHours && day.d >= p.hz.day;
  if (dropWholeDay) out.push({ res: 'd', index: day.d, subtract: true });
  for (let h = day.first; h <= day.last; h++) {
    const want = day.want[h - day.first]!;
    const held = p.inRollups(h);
    if (held && !want && !dropWholeDay) {
      // By construction only hours still kept at hour resolution are ever split off a rollup.
      if (h < p.hz.hour) throw new Error(`planner: cannot subtract hour ${h} past the horizon`);
      out.push({ res: 'h', index: h, subtract: true });
    } else if (!held && want) {
      out.push({ res: 'h', index: h, subtract: false });
    }
  }
}

/**
 * A rollup [b0, b1] that answers its hours at once: it holds exactly its compacted hours [b0, min(cmp, b1)]
 * (more than `unit`, the one read it would otherwise take), and `days` (which start at b0 and run at
 * least that far) want every one of them. Wanted hours after cmp come from their hour buckets
 * (`complete`). A whole compacted month or day is the common case; an open one (cmp inside it) makes
 * "the last 30 days" read this month's bucket instead of a day per day, and today's instead of an
 * hour per compacted hour of today.
 */
function wantsAllHeld(p: Plan, days: readonly DayWant[], b0: number, b1: number, unit: number): boolean {
  if (p.cmp === null) return false;
  const held = Math.min(p.cmp, b1);
  if (held - b0 + 1 <= unit) return false;
  if (days.length === 0 || days[0]!.first !== b0 || days.at(-1)!.last < held) return false;
  for (const day of days) {
    for (let h = day.first; h <= Math.min(day.last, held); h++) if (!day.want[h - day.first]) return false;
  }
  return true;
}

/** Signed bucket reads that count exactly the hours owned by `slice` within [from, to]. */
function realize(p: Plan, slice: number, from: number, to: number): Signed[] {
  const out: Signed[] = [];
  const hi = Math.min(to, p.dataEnd);
  const lo = Math.max(from, p.lo);
  const lastMonth = lo <= hi ? monthOfHour(hi) : -Infinity;
  for (let m = monthOfHour(lo); m <= lastMonth; m++) {
    const [m0, m1] = hoursOfMonth(m);
    const days: DayWant[] = [];
    for (let d = dayOfHour(Math.max(lo, m0)); d <= dayOfHour(Math.min(hi, m1)); d++) {
      days.push(dayWants(p, slice, d, Math.max(lo, m0), Math.min(hi, m1)));
    }
    const monthForced = days.some((x) => x.pastHorizon && x.d < p.hz.day);
    if (m >= p.hz.month && (monthForced || wantsAllHeld(p, days, m0, m1, 24))) {
      out.push({ res: 'm', index: m, subtract: false });
      for (const day of days) complete(p, day, out, true);
      continue;
    }
    for (const day of days) {
      if (!day.any) continue;
      const [d0, d1] = hoursOfDay(day.d);
      if (day.d >= p.hz.day && (day.pastHorizon || wantsAllHeld(p, [day], d0, d1, 1))) {
        out.push({ res: 'd', index: day.d, subtract: false });
        complete(p, day, out, false);
        continue;
      }
      for (let h = day.first; h <= day.last; h++) {
        if (!day.want[h - day.first]) continue;
        if (h < p.hz.hour) throw new Error(`planner: hour ${h} past the horizon has no bucket`);
        out.push({ res: 'h', index: h, subtract: false });
      }
    }
  }
  return out;
}

/** Hour ranges [first, last] of the slices to plan, clamped to where data can be. */
function slicesOf(p: Plan): [number, number][] {
  const from = Math.max(p.a, p.lo);
  const to = Math.min(p.b, p.dataEnd);
  const out: [number, number][] = [];
  if (from > to) return out;
  switch (p.g) {
    case undefined:
      out.push([from, to]);
      break;
    case 'hour':
      for (let h = from; h <= to; h++) out.push([h, h]);
      break;
    case 'day':
      for (let d = dayOfHour(from); d <= dayOfHour(to); d++) {
        const [d0, d1] = hoursOfDay(d);
        out.push([Math.max(from, d0), Math.min(to, d1)]);
      }
      break;
    case 'month':
      for (let m = monthOfHour(from), last = monthOfHour(to); m <= last; m++) {
        const [m0, m1] = hoursOfMonth(m);
        out.push([Math.max(from, m0), Math.min(to, m1)]);
      }
      break;
  }
  return out;
}

/**
 * The fewest buckets that answer each slice of [startHour, endHour]. Pure: the caller reads
 * `cmp`, computes the horizons (horizonsAt) and must read the buckets against that same
 * `cmp` (one MULTI with it), or a compaction in between could count an hour twice.
 */
export function planReads(input: PlanInput): ReadPlan {
  const p = new Plan(input);
  const reads: BucketRead[] = [];
  let precision: Precision = 'hour';
  if (p.a > p.b) return { reads, precision };
  if (p.zone) {
    const byEdges =
      input.billingZone &&
      planByEdges(
        {
          ...input,
          lo: p.lo,
          dataEnd: p.dataEnd,
          planUtc: (startHour, endHour) => planUtcHours(input, startHour, endHour),
        },
        p.zone,
        input.billingZone,
      );
    return byEdges || planZoned(p, p.zone);
  }

  for (const [first, last] of slicesOf(p)) {
    const slice = p.sliceOf(first);
    // The slice also owns every rollup answering past-horizon hours whose first requested
    // hour lies in it: widen what it reads to those whole days / months.
    let from = first;
    let to = last;
    for (let x = dayOfHour(first); x <= dayOfHour(last); x++) {
      const [x0, x1] = hoursOfDay(x);
      if (x0 >= p.hz.hour) break; // later days hold no past-horizon hour
      if (!p.dayAnswers(x) || Math.max(x0, p.a) < first) continue;
      from = Math.min(from, x0);
      to = Math.max(to, x1);
      if (p.widened('d', x0, x1)) precision = coarser(precision, 'day');
    }
    for (let y = monthOfHour(first), lastMonth = monthOfHour(last); y <= lastMonth; y++) {
      const [y0, y1] = hoursOfMonth(y);
      if (y0 >= p.hz.hour) break;
      if (!p.monthAnswers(y) || Math.max(y0, p.a) < first) continue;
      from = Math.min(from, y0);
      to = Math.max(to, y1);
      if (p.widened('m', y0, y1)) precision = coarser(precision, 'month');
    }
    const value = p.g === undefined ? null : slice;
    for (const r of realize(p, slice, from, to)) {
      const read: BucketRead = { res: r.res, index: r.index, slice: value };
      if (r.subtract) read.subtract = true;
      reads.push(read);
    }
  }
  return { reads, precision };
}

/** The plan of a run of UTC hours as one slice (a billing zone's run of UTC days: planner-billing.ts). */
function planUtcHours(input: PlanInput, startHour: number, endHour: number): ReadPlan {
  const { granularity: _g, timeZone: _z, billingZone: _b, firstMinuteKept: _m, ...utc } = input;
  return planReads({ ...utc, startHour, endHour });
}

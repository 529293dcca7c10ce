/**
 * Local calendars of IANA time zones (docs/api.md#time-zones), pure: where a zone's days and months
 * start, as instants, and which day or month slice an instant or an hour falls in.
 *
 * The zone data is the platform's (ICU's tz database, read through Intl.DateTimeFormat): Node and
 * browsers carry it, so no library is needed; date-fns-tz or Luxon would make the same Intl calls.
 * Intl is slow (microseconds a call), so every day start is remembered per zone, and a walk over
 * the hours of a range asks Intl once per slice, not once per hour.
 *
 * Rules:
 *   - A local day D (its number: days since 1970-01-01 of the local date) starts at the first
 *     instant whose local date is D or later: local midnight, or the end of the jump where a DST
 *     change skips midnight. Slices are contiguous: a slice runs to the next one's start, so an hour
 *     repeated across midnight (a fall-back at 24:00) stays in the day that began first.
 *   - A local month starts where its first day starts. Slice numbers are those of UTC (day number,
 *     month number since January 1970), so that in UTC they are exactly time.ts's.
 *   - An hour belongs to the slice holding its start instant. Where a slice starts inside a UTC hour
 *     (offsets such as +05:30: `midHourEdges`), that hour is split at the edge by its minute buckets
 *     while they keep it (edge-minutes.ts), else it counts whole in the earlier slice.
 *   - Hour slices are the UTC hours in every zone, minute slices the UTC minutes; in UTC everything is
 *     time.ts's arithmetic.
 */
import type { Granularity } from '@va/contracts';
import {
  DAY_MS,
  HOUR_MS,
  dayOf,
  dayStart,
  hourStart,
  minuteOf,
  minuteStart,
  monthOf,
  monthStart,
} from './time';

export const UTC = 'UTC';

/** Longer than every IANA name (the longest has 32 characters); longer input is refused before Intl sees it. */
export const MAX_TIME_ZONE_LENGTH = 64;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Names resolved so far, valid or not: building an Intl.DateTimeFormat costs 60–110 µs, and a query in a
 * zone resolves its name several times (check, plan, answer header). Dropped when full, so that requests
 * naming ever new zones cannot grow it.
 */
const resolved = new Map<string, string | null>();
const MAX_RESOLVED = 1_000;

/**
 * The zone's canonical name when `name` is an IANA zone the platform knows (any letter case),
 * 'UTC' for UTC under any name (Etc/UTC, GMT), or null. Offsets ("+05:30") are not zone names.
 */
export function resolveTimeZone(name: string): string | null {
  if (name.length === 0 || name.length > MAX_TIME_ZONE_LENGTH || !/^[A-Za-z]/.test(name)) return null;
  const known = resolved.get(name);
  if (known !== undefined) return known;
  let zone: string | null;
  try {
    zone = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    zone = null;
  }
  if (resolved.size >= MAX_RESOLVED) resolved.clear();
  resolved.set(name, zone);
  return zone;
}

/** Whether the zone is UTC (absent means UTC). */
export const isUtc = (zone: string | undefined): boolean => zone === undefined || zone === UTC;

/** Local time minus UTC at instant `ms`, in ms (whole seconds: the local clock's resolution here). */
export function offsetAt(zone: string, ms: number): number {
  const at = Math.floor(ms / 1000) * 1000;
  let y = 0;
  let mo = 0;
  let d = 0;
  let h = 0;
  let mi = 0;
  let s = 0;
  for (const part of formatter(zone).formatToParts(at)) {
    switch (part.type) {
      case 'year':
        y = Number(part.value);
        break;
      case 'month':
        mo = Number(part.value);
        break;
      case 'day':
        d = Number(part.value);
        break;
      case 'hour':
        h = Number(part.value);
        break;
      case 'minute':
        mi = Number(part.value);
        break;
      case 'second':
        s = Number(part.value);
        break;
    }
  }
  const wall = new Date(0);
  wall.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it maps years 0–99 to 1900–1999
  wall.setUTCHours(h, mi, s, 0);
  return wall.getTime() - at;
}

/** Local date (day number) of an instant, by its wall clock. */
const wallDay = (zone: string, ms: number): number => Math.floor((ms + offsetAt(zone, ms)) / DAY_MS);

/** Day starts remembered per zone; a map past this size is dropped and refilled. */
const MAX_REMEMBERED_DAYS = 200_000;
const dayStarts = new Map<string, Map<number, number>>();

/** Instant (ms) at which local day `d` starts in `zone` (see the header). */
export function localDayStart(zone: string, d: number): number {
  if (isUtc(zone)) return dayStart(d);
  let starts = dayStarts.get(zone);
  if (!starts || starts.size >= MAX_REMEMBERED_DAYS) {
    starts = new Map();
    dayStarts.set(zone, starts);
  }
  let start = starts.get(d);
  if (start === undefined) {
    start = computeDayStart(zone, d);
    starts.set(d, start);
  }
  return start;
}

const EARLIEST = 15 * HOUR_MS; // offsets reach at most 14 h east
const LATEST = 13 * HOUR_MS; // and 12 h west

function computeDayStart(zone: string, d: number): number {
  const wall = dayStart(d); // local midnight read as if it were UTC
  // The instants whose local time can be midnight of d lie in [wall - 14 h, wall + 12 h]; the
  // offsets in effect there are those at its ends (a zone changes its offset at most once a day).
  const before = offsetAt(zone, wall - EARLIEST);
  const after = offsetAt(zone, wall + LATEST);
  let first = Infinity;
  for (const offset of before === after ? [before] : [before, after]) {
    const t = wall - offset;
    if (t < first && (before === after || offsetAt(zone, t) === offset)) first = t;
  }
  if (first !== Infinity) return first;
  // Midnight skipped by a change of offset: the day starts where the jump lands, the first second
  // whose local date is d (the local date only moves forward here).
  let lo = Math.floor((wall - EARLIEST) / 1000);
  let hi = Math.ceil((wall + LATEST) / 1000);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallDay(zone, mid * 1000) >= d) hi = mid;
    else lo = mid;
  }
  return hi * 1000;
}

/** Number of the local day holding instant `ms`. */
export function localDayOf(zone: string, ms: number): number {
  if (isUtc(zone)) return dayOf(ms);
  // Offsets lie within ±14 h, so the local date is the UTC date or one beside it: found among
  // remembered day starts, without asking Intl once they are known.
  let d = dayOf(ms) + 1;
  while (localDayStart(zone, d) > ms) d--;
  while (localDayStart(zone, d + 1) <= ms) d++;
  return d;
}

/** Instant at which local month `m` (months since January 1970) starts. */
export const localMonthStart = (zone: string, m: number): number =>
  isUtc(zone) ? monthStart(m) : localDayStart(zone, dayOf(monthStart(m)));

/** Number of the local month holding instant `ms`. */
export const localMonthOf = (zone: string, ms: number): number =>
  isUtc(zone) ? monthOf(ms) : monthOf(dayStart(localDayOf(zone, ms)));

/** Number of the slice of granularity `g` holding instant `ms` (hours and minutes: UTC's). */
export function sliceIndexAt(ms: number, g: Granularity, zone?: string): number {
  switch (g) {
    case 'minute':
      return minuteOf(ms);
    case 'hour':
      return Math.floor(ms / HOUR_MS);
    case 'day':
      return isUtc(zone) ? dayOf(ms) : localDayOf(zone!, ms);
    case 'month':
      return isUtc(zone) ? monthOf(ms) : localMonthOf(zone!, ms);
  }
}

/** Start (ms) of slice number `i`. */
export function sliceStartOf(i: number, g: Granularity, zone?: string): number {
  switch (g) {
    case 'minute':
      return minuteStart(i);
    case 'hour':
      return hourStart(i);
    case 'day':
      return isUtc(zone) ? dayStart(i) : localDayStart(zone!, i);
    case 'month':
      return isUtc(zone) ? monthStart(i) : localMonthStart(zone!, i);
  }
}

/** Number of the slice holding hour h: the one holding the hour's start. */
export const sliceIndexOfHour = (h: number, g: Granularity, zone?: string): number =>
  sliceIndexAt(hourStart(h), g, zone);

/** First hour of slice `i`: the first hour starting in it. */
export const firstHourOfSlice = (i: number, g: Granularity, zone?: string): number =>
  Math.ceil(sliceStartOf(i, g, zone) / HOUR_MS);

/** Start (ms) of the slice holding hour h. */
export const sliceStartOfHourIn = (h: number, g: Granularity, zone?: string): number =>
  sliceStartOf(sliceIndexOfHour(h, g, zone), g, zone);

/** Start (ms) of the slice holding instant `ms`. */
export const sliceStartAt = (ms: number, g: Granularity, zone?: string): number =>
  sliceStartOf(sliceIndexAt(ms, g, zone), g, zone);

/**
 * Slice starts (ms) from the slice of startHour to the slice of endHour, inclusive. A local day
 * that a zone skipped (Pacific/Apia, 30 December 2011) has no length and no slice.
 */
export function sliceStartsIn(startHour: number, endHour: number, g: Granularity, zone?: string): number[] {
  const out: number[] = [];
  const last = sliceIndexOfHour(endHour, g, zone);
  for (let i = sliceIndexOfHour(startHour, g, zone); i <= last; i++) {
    const start = sliceStartOf(i, g, zone);
    if (g === 'hour' || g === 'minute' || isUtc(zone) || start < sliceStartOf(i + 1, g, zone))
      out.push(start);
  }
  return out;
}

/**
 * The slice edges (ms) inside the hours [startHour, endHour] that fall inside a UTC hour: none in a
 * zone whose offset is a whole hour; in Asia/Kolkata, Asia/Kathmandu, America/St_Johns,
 * Pacific/Chatham (and Australia/Lord_Howe outside its summer time) every local midnight (first of
 * the month) after the range's first instant. Such an edge's hour holds instants of two slices.
 */
export function midHourEdges(startHour: number, endHour: number, g: Granularity, zone?: string): number[] {
  if (g === 'hour' || g === 'minute' || isUtc(zone) || startHour > endHour) return [];
  const from = hourStart(startHour);
  const to = hourStart(endHour + 1);
  const out: number[] = [];
  const last = sliceIndexAt(to, g, zone);
  for (let i = sliceIndexAt(from, g, zone) + 1; i <= last; i++) {
    const edge = sliceStartOf(i, g, zone);
    if (edge > from && edge < to && edge % HOUR_MS !== 0) out.push(edge);
  }
  return out;
}

/**
 * Whether every slice edge inside the hours [startHour, endHour] falls on a UTC hour, so that
 * counting each hour in the slice holding its start is exact (no midHourEdges).
 */
export const edgesOnHours = (startHour: number, endHour: number, g: Granularity, zone?: string): boolean =>
  midHourEdges(startHour, endHour, g, zone).length === 0;

/**
 * A slice finder for a walk over hours in order (the planner's): it asks the calendar only when
 * an hour leaves the slice found last.
 */
export class SliceCursor {
  private index = 0;
  private start = 1;
  private end = 0;

  constructor(
    readonly granularity: Granularity,
    readonly zone: string | undefined,
  ) {}

  /** Slice number of hour h. */
  indexOfHour(h: number): number {
    const ms = hourStart(h);
    if (ms < this.start || ms >= this.end) {
      this.index = sliceIndexAt(ms, this.granularity, this.zone);
      this.start = sliceStartOf(this.index, this.granularity, this.zone);
      this.end = sliceStartOf(this.index + 1, this.granularity, this.zone);
    }
    return this.index;
  }

  /** Start (ms) of the slice of hour h. */
  startOfHour(h: number): number {
    this.indexOfHour(h);
    return this.start;
  }
}

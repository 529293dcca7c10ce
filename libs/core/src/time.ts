/**
 * The time rule, in one module (pure): UTC bucket arithmetic (hours and days are fixed-length,
 * months are calendar months indexed from January 1970 = 0), retention (a bucket is kept until its
 * end + the retention of its resolution), the horizons that follow from it, and the closed bound
 * of compaction. The store, the compactor, the planner and the oracle all ask this module; the
 * Lua scripts use the same calendar from libs/store/src/commands/includes/time.lua, which
 * libs/store/src/time-lua.int.test.ts checks against this file in a real Redis.
 */
import type { Granularity } from '@va/contracts';

/**
 * How long a bucket of each resolution is kept after its end, in ms (Config.retention): a bucket
 * lives until its end + the retention of its resolution.
 */
export interface Retention {
  hourMs: number;
  dayMs: number;
  monthMs: number;
  /**
   * How long a minute bucket is kept after its end (groupBy=minute, docs/api.md#minute-slices). Absent: 0, no
   * minute is kept, and the worker writes none.
   */
  minuteMs?: number;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** RETENTION_MINUTES_HOURS' default: minute buckets are kept 48 hours after their end. */
export const DEFAULT_MINUTE_RETENTION_MS = 48 * HOUR_MS;

/** Minute index `floor(ms / 60_000)`: the UTC minutes, in every time zone. */
export const minuteOf = (ms: number): number => Math.floor(ms / MINUTE_MS);
export const minuteStart = (n: number): number => n * MINUTE_MS;

export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS);
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
export function monthOf(ms: number): number {
  const d = new Date(ms);
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
}

export const hourStart = (h: number): number => h * HOUR_MS;
export const dayStart = (d: number): number => d * DAY_MS;
export function monthStart(m: number): number {
  return Date.UTC(1970 + Math.floor(m / 12), ((m % 12) + 12) % 12, 1);
}

/**
 * The last hour that may be compacted at `now`: every hour that ended at least `graceMs` ago.
 * Hour h ends at (h + 1) * 1h, so h is closed with grace when h <= hourOf(now - grace) - 1.
 */
export const closedBoundAt = (now: number, graceMs: number): number => hourOf(now - graceMs) - 1;

export const dayOfHour = (h: number): number => Math.floor(h / 24);
export const monthOfHour = (h: number): number => monthOf(hourStart(h));
export const monthOfDay = (d: number): number => monthOf(dayStart(d));

/** First and last hour index of a day / month. */
export const hoursOfDay = (d: number): [number, number] => [d * 24, d * 24 + 23];
export function hoursOfMonth(m: number): [number, number] {
  return [hourOf(monthStart(m)), hourOf(monthStart(m + 1)) - 1];
}
export function daysOfMonth(m: number): [number, number] {
  return [dayOf(monthStart(m)), dayOf(monthStart(m + 1)) - 1];
}

/** Start (ms) of the slice of the given granularity that contains an hour (a minute: the hour's first). */
export function sliceStartOfHour(h: number, granularity: Granularity): number {
  switch (granularity) {
    case 'minute':
    case 'hour':
      return hourStart(h);
    case 'day':
      return dayStart(dayOfHour(h));
    case 'month':
      return monthStart(monthOfHour(h));
  }
}

/** Slice starts (ms) from the slice of startHour to the slice of endHour, inclusive. */
export function sliceStarts(startHour: number, endHour: number, granularity: Granularity): number[] {
  const out: number[] = [];
  switch (granularity) {
    case 'minute':
      for (let n = minuteOf(hourStart(startHour)); n <= minuteOf(hourStart(endHour + 1)) - 1; n++)
        out.push(minuteStart(n));
      break;
    case 'hour':
      for (let h = startHour; h <= endHour; h++) out.push(hourStart(h));
      break;
    case 'day':
      for (let d = dayOfHour(startHour); d <= dayOfHour(endHour); d++) out.push(dayStart(d));
      break;
    case 'month':
      for (let m = monthOfHour(startHour); m <= monthOfHour(endHour); m++) out.push(monthStart(m));
      break;
  }
  return out;
}

/**
 * A bucket's resolution, as the Redis layout spells it: hours, days (UTC), calendar months. These are the
 * buckets that are indexed, sealed and compacted.
 */
export type Resolution = 'h' | 'd' | 'm';

/** A billing zone's edge bucket (zone-edges.ts): `z<n>d` or `z<n>m`, n = the zone's number 1–3. */
export type EdgeResolution = `z${1 | 2 | 3}${'d' | 'm'}`;

export const isEdgeResolution = (res: string): res is EdgeResolution => res.length === 3 && res[0] === 'z';

/**
 * Every bucket's resolution: Resolution's; 'n', the minute buckets of groupBy=minute (index minuteOf): a
 * separate family of plain hashes that only expire (docs/design.md "The next store changes"); and the
 * edges of billing zones (zone-edges.ts: index minuteOf of a local midnight, ending with its UTC day).
 */
export type BucketResolution = Resolution | 'n' | EdgeResolution;

/** End (unix ms, exclusive) of bucket `index` of resolution `res`. */
export function bucketEnd(res: BucketResolution, index: number): number {
  if (isEdgeResolution(res)) return dayStart(dayOf(minuteStart(index)) + 1);
  switch (res) {
    case 'n':
      return minuteStart(index + 1);
    case 'h':
      return hourStart(index + 1);
    case 'd':
      return dayStart(index + 1);
    case 'm':
      return monthStart(index + 1);
  }
}

/**
 * Last hour index of bucket `index` of resolution `res` (a sealable bucket's score: docs/store-v2.md); of a
 * minute, the hour holding it.
 */
export function lastHourOf(res: BucketResolution, index: number): number {
  return Math.ceil(bucketEnd(res, index) / HOUR_MS) - 1;
}

function retentionOf(res: BucketResolution, retention: Retention): number {
  // An edge is kept as long as the rollup its local slice is read beside: a day's, or a month's.
  if (isEdgeResolution(res)) return res.endsWith('m') ? retention.monthMs : retention.dayMs;
  switch (res) {
    case 'n':
      return retention.minuteMs ?? 0;
    case 'h':
      return retention.hourMs;
    case 'd':
      return retention.dayMs;
    case 'm':
      return retention.monthMs;
  }
}

/** The retention rule: a bucket expires at its end + the retention of its resolution (PEXPIREAT). */
export function expiresAt(res: BucketResolution, index: number, retention: Retention): number {
  return bucketEnd(res, index) + retentionOf(res, retention);
}

/** Whether the retention rule still keeps bucket `index` of `res` at `now`. */
export function keptAt(res: BucketResolution, index: number, retention: Retention, now: number): boolean {
  return now < expiresAt(res, index, retention);
}

/**
 * The first minute still kept at `now` (by the retention rule, the one holding `now - minuteMs`): a
 * groupBy=minute range may not start before it (docs/api.md#minute-slices).
 */
export const firstMinuteKept = (now: number, retention: Pick<Retention, 'minuteMs'>): number =>
  minuteOf(now - (retention.minuteMs ?? 0));

/** First hour index / day index / month index still retained at each resolution. */
export interface Horizons {
  hour: number;
  day: number;
  month: number;
}

/**
 * The horizons at `now`: by the retention rule, the first bucket still kept is the one
 * containing `now - retention` (every later one is kept too).
 */
export function horizonsAt(now: number, retention: Retention): Horizons {
  return {
    hour: hourOf(now - retention.hourMs),
    day: dayOf(now - retention.dayMs),
    month: monthOf(now - retention.monthMs),
  };
}

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
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

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

/** Start (ms) of the slice of the given granularity that contains an hour. */
export function sliceStartOfHour(h: number, granularity: Granularity): number {
  switch (granularity) {
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

/** A bucket's resolution, as the Redis layout spells it: hours, days (UTC), calendar months. */
export type Resolution = 'h' | 'd' | 'm';

/** End (unix ms, exclusive) of bucket `index` of resolution `res`. */
export function bucketEnd(res: Resolution, index: number): number {
  if (res === 'h') return hourStart(index + 1);
  return res === 'd' ? dayStart(index + 1) : monthStart(index + 1);
}

/** Last hour index of bucket `index` of resolution `res` (a sealable bucket's score: docs/store-v2.md). */
export function lastHourOf(res: Resolution, index: number): number {
  return bucketEnd(res, index) / HOUR_MS - 1;
}

const retentionOf = (res: Resolution, retention: Retention): number =>
  res === 'h' ? retention.hourMs : res === 'd' ? retention.dayMs : retention.monthMs;

/** The retention rule: a bucket expires at its end + the retention of its resolution (PEXPIREAT). */
export function expiresAt(res: Resolution, index: number, retention: Retention): number {
  return bucketEnd(res, index) + retentionOf(res, retention);
}

/** Whether the retention rule still keeps bucket `index` of `res` at `now`. */
export function keptAt(res: Resolution, index: number, retention: Retention, now: number): boolean {
  return now < expiresAt(res, index, retention);
}

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

/**
 * UTC bucket arithmetic. Hours and days are fixed-length; months are calendar months,
 * indexed from January 1970 (index 0).
 */
import type { Granularity } from '@va/contracts';

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

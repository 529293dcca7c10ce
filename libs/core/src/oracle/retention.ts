/**
 * The oracle's model of retention (docs/api.md#retention), hour by hour, from the doc's words
 * rather than from the planner: a bucket of resolution r is kept while now < its end +
 * retention[r] (the retention rule of libs/core/src/time.ts, which the store follows too). An hour of the queried range is answered by the finest bucket still kept
 * that contains it (its hour, else its day, else its month, else nothing). A day or month
 * rollup answers with all it holds, so an event outside the range but inside such a
 * bucket counts too; an event counts once however many hours its bucket answers.
 */
import type { HourGranularity } from '@va/contracts';
import { dayOfHour, hoursOfDay, hoursOfMonth, keptAt, monthOfHour, type Retention } from '../time';

export interface HourRange {
  /** Absent: no lower bound. */
  startHour?: number;
  endHour: number;
}

export interface Answer {
  /** Hour at which the counts appear: the event's own, or the rollup's first hour (clipped to the range). */
  hour: number;
  resolution: HourGranularity;
}

export interface RetentionModel {
  /** Where the counts of an event of hour h show up in the answer, or null when they don't. */
  answer(h: number): Answer | null;
  /**
   * The coarsest resolution that answers part of the range less exactly than asked: a
   * rollup that reaches outside the range, or one coarser than the time granularity.
   * `firstHour` bounds the walk when the range has no start (no data lies before it).
   * `inOneSlice` (time zones): whether a rollup's hours [first, last] all lie in the one slice
   * its counts go to; absent, a rollup no coarser than the granularity is in one slice.
   */
  precision(
    granularity: HourGranularity | undefined,
    firstHour: number,
    inOneSlice?: (first: number, last: number) => boolean,
  ): HourGranularity;
}

const someHour = (first: number, last: number, test: (h: number) => boolean): boolean => {
  for (let h = first; h <= last; h++) if (test(h)) return true;
  return false;
};

/** f with each argument's result kept (f is pure). */
function remembered<T>(f: (x: number) => T): (x: number) => T {
  const results = new Map<number, T>();
  return (x) => {
    if (results.has(x)) return results.get(x)!;
    const result = f(x);
    results.set(x, result);
    return result;
  };
}

export function retentionModel(now: number, retention: Retention, range: HourRange): RetentionModel {
  const { startHour, endHour } = range;
  const hourKept = (h: number) => keptAt('h', h, retention, now);
  const dayKept = (d: number) => keptAt('d', d, retention, now);
  const monthKept = (m: number) => keptAt('m', m, retention, now);
  const inRange = (h: number) => (startHour === undefined || h >= startHour) && h <= endHour;
  const clipToStart = (h: number) => (startHour === undefined ? h : Math.max(h, startHour));
  const answeredByDay = (x: number) => inRange(x) && !hourKept(x);
  const answeredByMonth = (x: number) => inRange(x) && !hourKept(x) && !dayKept(dayOfHour(x));

  // Whether a day (month) rollup answers some hour of the range: a walk over its 24 (~720) hours, the
  // same for every hour of that day (month). Remembered, like each hour's answer: the oracle asks once per
  // event, and these walks made it the largest CPU user of the end-to-end tests (120,000 events).
  const dayAnswers = remembered((day: number) => {
    const [first, last] = hoursOfDay(day);
    return dayKept(day) && someHour(first, last, answeredByDay);
  });
  const monthAnswers = remembered((month: number) => {
    const [first, last] = hoursOfMonth(month);
    return monthKept(month) && someHour(first, last, answeredByMonth);
  });

  const answer = remembered((h: number): Answer | null => {
    if (inRange(h) && hourKept(h)) return { hour: h, resolution: 'hour' };
    const day = dayOfHour(h);
    if (dayAnswers(day)) return { hour: clipToStart(hoursOfDay(day)[0]), resolution: 'day' };
    const month = monthOfHour(h);
    if (monthAnswers(month)) return { hour: clipToStart(hoursOfMonth(month)[0]), resolution: 'month' };
    return null;
  });

  return {
    answer,

    precision(granularity, firstHour, inOneSlice) {
      const whole = (first: number, last: number) =>
        (startHour === undefined || first >= startHour) && last <= endHour;
      let precision: HourGranularity = 'hour';
      for (let x = startHour ?? firstHour; x <= endHour; x++) {
        if (hourKept(x)) break; // hours expire oldest first: every later hour is kept too
        const day = dayOfHour(x);
        if (dayKept(day)) {
          const [first, last] = hoursOfDay(day);
          if (granularity === 'hour' || !whole(first, last) || (inOneSlice && !inOneSlice(first, last)))
            precision = 'day';
          continue;
        }
        const month = monthOfHour(x);
        if (monthKept(month)) {
          const [first, last] = hoursOfMonth(month);
          if (
            granularity === 'hour' ||
            granularity === 'day' ||
            !whole(first, last) ||
            (inOneSlice && !inOneSlice(first, last))
          )
            return 'month';
        }
      }
      return precision;
    },
  };
}

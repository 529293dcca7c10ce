/**
 * Which time slices an answer shows (docs/api.md#grouping, #rows). Pure.
 *
 * Normally every slice of the range; but a range can hold millions of slices (groupBy=hour
 * over years), more than any response may show. Then, with a limit, only the slices that can
 * reach the first `limit` rows are kept: every slice holding data, and the first and last
 * `limit + (slices with data)` slices of the range — whatever the order, the rows of the other
 * slices are all-zero rows that sort after those (ties fall back to time order). Without a
 * limit such a range is over the row cap unless no group has data.
 *
 * Minute slices (docs/api.md#minute-slices) are the UTC minutes of ParsedQuery.minutes, every one of them
 * (gap filling), by the same rule.
 */
import type { Granularity } from '@va/contracts';
import { firstHourOfSlice, sliceIndexAt, sliceIndexOfHour, sliceStartOf, sliceStartsIn } from '../calendar';
import { minuteOf, minuteStart } from '../time';
import type { ParsedQuery } from '../types';

/**
 * Number of the slice holding hour `h`: hours, days or months since 1970 (days and months of
 * `zone`, docs/api.md#time-zones; absent: UTC).
 */
export const indexOfHour = (h: number, g: Granularity, zone?: string): number => sliceIndexOfHour(h, g, zone);
/** Start (ms) of slice number `i`. */
export const startOfIndex = (i: number, g: Granularity, zone?: string): number => sliceStartOf(i, g, zone);
/** First hour of slice number `i`: the first hour starting in it. */
export const firstHourOfIndex = (i: number, g: Granularity, zone?: string): number =>
  firstHourOfSlice(i, g, zone);

export interface SliceInput {
  /** First hour of the range: trunc(start), or of the first bucket holding data when start is absent. */
  startHour: number;
  endHour: number;
  granularity: Granularity;
  /** The zone of day and month slices (ParsedQuery.timeZone); absent: UTC. */
  timeZone?: string;
  /** No start given: the range begins at the first slice holding matching data. */
  fromFirstData: boolean;
  limit: number | undefined;
  maxRows: number;
  /** Slice starts (ms) that hold matching data. */
  dataSlices: readonly number[];
  /** Groups with data (1 when the query groups by time only); asked only for a refusal. */
  groupCount: () => number;
  /** groupBy=minute: the range's minutes (ParsedQuery.minutes), which the slices are; the hours are not read. */
  minutes?: { start: number; end: number };
}

export type SliceChoice =
  | { ok: true; slices: number[]; trimLeading: boolean }
  | { ok: false; rowCount: number /** over the row cap */ };

export function chooseSlices(input: SliceInput): SliceChoice {
  if (input.minutes) return chooseMinuteSlices(input, input.minutes);
  const g = input.granularity;
  const zone = input.timeZone;
  const sliceIndex = (ms: number) => sliceIndexAt(ms, g, zone);
  let from = indexOfHour(input.startHour, g, zone);
  const to = indexOfHour(input.endHour, g, zone);
  if (to - from + 1 <= input.maxRows) {
    return {
      ok: true,
      slices: sliceStartsIn(input.startHour, input.endHour, g, zone),
      trimLeading: input.fromFirstData,
    };
  }

  const data = [...new Set(input.dataSlices.map(sliceIndex))]
    .filter((i) => i >= from && i <= to)
    .sort((a, b) => a - b);
  if (input.fromFirstData) {
    if (data.length === 0) return { ok: true, slices: [], trimLeading: false };
    from = data[0]!;
    if (to - from + 1 <= input.maxRows) {
      return {
        ok: true,
        slices: sliceStartsIn(firstHourOfIndex(from, g, zone), input.endHour, g, zone),
        trimLeading: false,
      };
    }
  }
  return edgesAndData(input, from, to, data, (i) => startOfIndex(i, g, zone));
}

/** The starts (ms) of the minutes start .. end, inclusive: every minute slice of a range. */
export function minuteSlices(start: number, end: number): number[] {
  const out: number[] = [];
  for (let n = start; n <= end; n++) out.push(minuteStart(n));
  return out;
}

/** chooseSlices of a minute range: every minute, or its edges and its minutes with data. */
function chooseMinuteSlices(input: SliceInput, { start, end }: { start: number; end: number }): SliceChoice {
  if (end - start + 1 <= input.maxRows) {
    return { ok: true, slices: minuteSlices(start, end), trimLeading: false };
  }
  const data = [...new Set(input.dataSlices.map(minuteOf))]
    .filter((n) => n >= start && n <= end)
    .sort((a, b) => a - b);
  return edgesAndData(input, start, end, data, minuteStart);
}

/**
 * Slices [from, to] (numbers) over the cap: refused without a limit (unless no group has data), else the
 * slices holding data and the first and last `limit + data.length` (see the header).
 */
function edgesAndData(
  input: SliceInput,
  from: number,
  to: number,
  data: readonly number[],
  startOf: (i: number) => number,
): SliceChoice {
  const count = to - from + 1;
  if (input.limit === undefined) {
    const groups = input.groupCount();
    return groups === 0
      ? { ok: true, slices: [], trimLeading: false }
      : { ok: false, rowCount: count * groups };
  }
  const edge = input.limit + data.length;
  const kept = new Set<number>(data);
  for (let i = from; i < Math.min(from + edge, to + 1); i++) kept.add(i);
  for (let i = Math.max(to - edge + 1, from); i <= to; i++) kept.add(i);
  const slices = [...kept].sort((a, b) => a - b).map(startOf);
  return { ok: true, slices, trimLeading: false };
}

/** Rows in time order: no orderBy, or orderBy=time. */
export const timeOrdered = (query: Pick<ParsedQuery, 'orderBy'>): boolean =>
  query.orderBy === undefined || query.orderBy === 'time';

/**
 * A limit in time order shows the first (ascending) or last (descending) slices of the range:
 * the starts of the first / last `count` slices of [startHour, endHour]. With `groups` groups
 * having data, `count` = ceil(limit / groups) is enough for the first `limit` rows.
 */
export function edgeSlices(
  startHour: number,
  endHour: number,
  granularity: Granularity,
  order: ParsedQuery['order'],
  count: number,
  zone?: string,
): number[] {
  const g = granularity;
  const from = indexOfHour(startHour, g, zone);
  const to = indexOfHour(endHour, g, zone);
  if (to - from + 1 <= count) return sliceStartsIn(startHour, endHour, g, zone);
  if (order === 'desc') return sliceStartsIn(firstHourOfIndex(to - count + 1, g, zone), endHour, g, zone);
  return sliceStartsIn(startHour, firstHourOfIndex(from + count, g, zone) - 1, g, zone);
}

/** edgeSlices of a minute range (ParsedQuery.minutes): its first (ascending) or last `count` minutes. */
export function edgeMinuteSlices(
  minutes: { start: number; end: number },
  order: ParsedQuery['order'],
  count: number,
): number[] {
  const { start, end } = minutes;
  if (end - start + 1 <= count) return minuteSlices(start, end);
  return order === 'desc' ? minuteSlices(end - count + 1, end) : minuteSlices(start, start + count - 1);
}

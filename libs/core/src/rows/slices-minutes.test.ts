/** Minute slices (docs/api.md#minute-slices): gap filling, the row cap's edges, a time-ordered limit's edges. */
import { describe, expect, it } from 'vitest';
import { planMinuteReads } from '../planner-minutes';
import { chooseSlices, edgeMinuteSlices, minuteSlices, type SliceInput } from './slices';

const M = 60_000;
const minutes = { start: 1000, end: 1009 };
const base: SliceInput = {
  // The hours are not read for minutes: deliberately unrelated values.
  startHour: 0,
  endHour: 100,
  granularity: 'minute',
  minutes,
  fromFirstData: false,
  limit: undefined,
  maxRows: 5,
  dataSlices: [],
  groupCount: () => 1,
};

describe('minute slices', () => {
  it('are every minute of the range, as unix ms', () => {
    expect(minuteSlices(1000, 1003)).toEqual([1000 * M, 1001 * M, 1002 * M, 1003 * M]);
    expect(minuteSlices(5, 4)).toEqual([]);
  });

  it('chooseSlices keeps every minute within the cap, and refuses more without a limit', () => {
    expect(chooseSlices({ ...base, minutes: { start: 1000, end: 1004 } })).toEqual({
      ok: true,
      slices: minuteSlices(1000, 1004),
      trimLeading: false,
    });
    expect(chooseSlices({ ...base, groupCount: () => 3 })).toEqual({ ok: false, rowCount: 30 });
  });

  it('with a limit keeps the minutes with data and enough minutes at both ends', () => {
    const choice = chooseSlices({ ...base, limit: 1, dataSlices: [1005 * M, 1005 * M] });
    expect(choice).toEqual({
      ok: true,
      slices: [1000, 1001, 1005, 1008, 1009].map((n) => n * M),
      trimLeading: false,
    });
  });

  it("edgeMinuteSlices: the first or last minutes of a time-ordered limit's rows", () => {
    expect(edgeMinuteSlices(minutes, 'asc', 3)).toEqual(minuteSlices(1000, 1002));
    expect(edgeMinuteSlices(minutes, 'desc', 3)).toEqual(minuteSlices(1007, 1009));
    expect(edgeMinuteSlices(minutes, undefined, 20)).toEqual(minuteSlices(1000, 1009));
  });

  it('planMinuteReads reads one minute bucket per minute, up to the minute data can reach', () => {
    expect(planMinuteReads({ start: 10, end: 12, granularity: 'minute' })).toEqual({
      reads: [10, 11, 12].map((index) => ({ res: 'n', index, slice: index * M })),
      precision: 'hour',
    });
    expect(planMinuteReads({ start: 10, end: 12, dataThroughMinute: 11 }).reads).toEqual([
      { res: 'n', index: 10, slice: null },
      { res: 'n', index: 11, slice: null },
    ]);
  });
});

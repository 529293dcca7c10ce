import { describe, expect, it } from 'vitest';
import { sliceStarts } from '../time';
import { chooseSlices, edgeSlices, type SliceInput } from './slices';

const H = 3_600_000;
const base: SliceInput = {
  startHour: 1000,
  endHour: 1009,
  granularity: 'hour',
  fromFirstData: false,
  limit: undefined,
  maxRows: 5,
  dataSlices: [],
  groupCount: () => 1,
};

describe('chooseSlices', () => {
  it('keeps every slice of a range within the row cap', () => {
    expect(chooseSlices({ ...base, endHour: 1004 })).toEqual({
      ok: true,
      slices: sliceStarts(1000, 1004, 'hour'),
      trimLeading: false,
    });
    expect(chooseSlices({ ...base, endHour: 1004, fromFirstData: true })).toMatchObject({
      trimLeading: true,
    });
  });

  it('refuses a longer range without a limit, unless no group has data', () => {
    expect(chooseSlices(base)).toEqual({ ok: false, rowCount: 10 });
    expect(chooseSlices({ ...base, groupCount: () => 3 })).toEqual({ ok: false, rowCount: 30 });
    expect(chooseSlices({ ...base, groupCount: () => 0 })).toEqual({
      ok: true,
      slices: [],
      trimLeading: false,
    });
  });

  it('with a limit keeps the data slices and enough slices at both ends', () => {
    const choice = chooseSlices({
      ...base,
      endHour: 1099,
      limit: 2,
      dataSlices: [1050 * H, 1050 * H, 1060 * H],
    });
    const hours = [1000, 1001, 1002, 1003, 1050, 1060, 1096, 1097, 1098, 1099];
    expect(choice).toEqual({ ok: true, slices: hours.map((h) => h * H), trimLeading: false });
  });

  it('starts at the first data slice when start is absent', () => {
    expect(chooseSlices({ ...base, fromFirstData: true, dataSlices: [1007 * H] })).toEqual({
      ok: true,
      slices: [1007, 1008, 1009].map((h) => h * H),
      trimLeading: false,
    });
    expect(chooseSlices({ ...base, fromFirstData: true })).toEqual({
      ok: true,
      slices: [],
      trimLeading: false,
    });
  });

  it('handles a range of millions of hours', () => {
    const choice = chooseSlices({ ...base, startHour: 0, endHour: 70_000_000, maxRows: 100_000, limit: 3 });
    expect(choice).toEqual({
      ok: true,
      slices: [0, 1, 2, 69_999_998, 69_999_999, 70_000_000].map((h) => h * H),
      trimLeading: false,
    });
  });

  it('counts days and months', () => {
    const days = chooseSlices({ ...base, granularity: 'day', startHour: 0, endHour: 24 * 10 - 1, limit: 1 });
    expect(days).toEqual({ ok: true, slices: [0, 9].map((d) => d * 24 * H), trimLeading: false });
    const months = chooseSlices({
      ...base,
      granularity: 'month',
      startHour: 0,
      endHour: 24 * 366,
      maxRows: 5,
    });
    expect(months).toEqual({ ok: false, rowCount: 13 });
  });
});

describe('edgeSlices', () => {
  it('gives the first or last slices of a range, or all of a short one', () => {
    expect(edgeSlices(1000, 1009, 'hour', undefined, 3)).toEqual([1000, 1001, 1002].map((h) => h * H));
    expect(edgeSlices(1000, 1009, 'hour', 'desc', 3)).toEqual([1007, 1008, 1009].map((h) => h * H));
    expect(edgeSlices(1000, 1009, 'hour', 'asc', 20)).toEqual(sliceStarts(1000, 1009, 'hour'));
    expect(edgeSlices(5, 24 * 5, 'day', undefined, 2)).toEqual([0, 1].map((d) => d * 24 * H));
    expect(edgeSlices(5, 24 * 5, 'day', 'desc', 2)).toEqual([4, 5].map((d) => d * 24 * H));
  });
});

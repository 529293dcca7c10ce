import { describe, expect, it } from 'vitest';
import { DAY_MS, daysOfMonth, edgesOfUtcDay, monthOfDay, type BucketRead } from '@va/core';
import {
  CHILDREN_MIN,
  dayHourGroups,
  monthDayGroups,
  monthEdgeGroups,
  monthHourGroups,
  recordedSections,
} from './rollup-children';

const day = (index: number, subtract?: true): BucketRead => ({
  res: 'd',
  index,
  slice: index * 86_400_000,
  ...(subtract && { subtract }),
});
const [first, last] = daysOfMonth(monthOfDay(20_500));
const LENGTH = last - first + 1;
const daysFrom = (start: number, count: number) => Array.from({ length: count }, (_, n) => day(start + n));
const indexes = (reads: BucketRead[]) => reads.map((r) => r.index);

describe('monthDayGroups', () => {
  it('groups the plain day reads of each month, from CHILDREN_MIN days on', () => {
    const reads = [...daysFrom(first, LENGTH), ...daysFrom(first - CHILDREN_MIN, CHILDREN_MIN)];
    const groups = monthDayGroups(reads);
    expect([...groups.keys()].sort()).toEqual([monthOfDay(first - 1), monthOfDay(first)].sort());
    expect(groups.get(monthOfDay(first))!.map((r) => r.index)).toEqual(
      daysFrom(first, LENGTH).map((r) => r.index),
    );
    expect(monthDayGroups(daysFrom(first, CHILDREN_MIN - 1)).size).toBe(0);
  });

  it('leaves alone a month whose rollup the plan reads, or whose days it subtracts', () => {
    const month = monthOfDay(first);
    expect(monthDayGroups([...daysFrom(first, 5), { res: 'm', index: month, slice: null }]).size).toBe(0);
    expect(monthDayGroups([...daysFrom(first, 5), day(first + 6, true)]).size).toBe(0);
  });

  it('keeps hours out of the groups', () => {
    const reads: BucketRead[] = [...daysFrom(first, 4), { res: 'h', index: (first + 5) * 24, slice: null }];
    expect(monthDayGroups(reads).get(monthOfDay(first))).toHaveLength(4);
  });
});

describe('dayHourGroups', () => {
  const d = 20_500;
  const hour = (h: number, slice: number, subtract?: true): BucketRead => ({
    res: 'h',
    index: d * 24 + h,
    slice,
    ...(subtract && { subtract }),
  });
  // A New York day: its UTC day's hours 00-04 subtracted, and the same hours added to the day before.
  const edges = [0, 1, 2, 3, 4].flatMap((h) => [hour(h, 1, true), hour(h, 0)]);

  it('groups every read of the compacted hours of a UTC day, signs, slices and repeats kept', () => {
    const groups = dayHourGroups([{ res: 'd', index: d, slice: 1 }, ...edges], d * 24 + 23);
    expect([...groups.keys()]).toEqual([d]);
    expect(groups.get(d)).toEqual(edges);
  });

  it('leaves out the hours after the compaction point, and a day with fewer than CHILDREN_MIN hours', () => {
    expect(dayHourGroups(edges, null).size).toBe(0);
    expect(dayHourGroups(edges, d * 24 + 2).get(d)).toEqual(edges.slice(0, 6));
    expect(dayHourGroups(edges, d * 24 + CHILDREN_MIN - 2).size).toBe(0);
    // Repeats of one bucket count once.
    expect(dayHourGroups(edges.slice(0, 4), d * 24 + 23).size).toBe(0);
  });
});

describe('monthHourGroups', () => {
  const month = monthOfDay(first);
  const hour = (index: number, slice: number, subtract?: true): BucketRead => ({
    res: 'h',
    index,
    slice,
    ...(subtract && { subtract }),
  });
  // The edge hours of a New York day in the month (added and subtracted), one hour of the month
  // before, and a single hour of another day of the month.
  const edges = [0, 1, 2, 3, 4].flatMap((h) => [
    hour((first + 3) * 24 + h, 1, true),
    hour((first + 3) * 24 + h, 0),
  ]);
  const before = hour(first * 24 - 1, 0);
  const single = hour((first + 9) * 24 + 7, 2);

  it('groups every read of the compacted hours of a grouped month, however few per day', () => {
    const groups = monthHourGroups(
      [...daysFrom(first, 3), ...edges, before, single],
      new Set([month]),
      last * 24,
    );
    expect([...groups.keys()]).toEqual([month]);
    expect(groups.get(month)).toEqual([...edges, single]);
  });

  it('leaves out the hours after the compaction point, and the hours of months not grouped', () => {
    expect(monthHourGroups(edges, new Set([month]), null).size).toBe(0);
    expect(monthHourGroups(edges, new Set([month]), (first + 3) * 24 + 1).get(month)).toEqual(
      edges.slice(0, 4),
    );
    expect(monthHourGroups([...edges, before], new Set([month - 1]), last * 24).get(month - 1)).toEqual([
      before,
    ]);
    expect(monthHourGroups(edges, new Set(), last * 24).size).toBe(0);
  });
});

describe('monthEdgeGroups', () => {
  /** The Kolkata edge of UTC day d (the tail from 18:30, a month-start edge on a month's last day), read twice. */
  const edgeReads = (d: number): BucketRead[] => {
    const [edge] = edgesOfUtcDay('Asia/Kolkata', 1, d);
    return [
      { res: edge!.res, index: edge!.index, slice: d * DAY_MS, subtract: true },
      { res: edge!.res, index: edge!.index, slice: (d + 1) * DAY_MS },
    ];
  };
  const month = monthOfDay(first);

  it('groups every read of the edges of compacted days of a grouped month, per edge resolution', () => {
    const reads = [first, first + 1, last].flatMap(edgeReads);
    const groups = monthEdgeGroups(reads, new Set([month]), last * 24 + 23);
    expect([...groups.keys()]).toEqual([month]);
    const [days, starts] = groups.get(month)!;
    expect(days!.map((r) => [r.res, r.subtract ?? false])).toEqual([
      ['z1d', true],
      ['z1d', false],
      ['z1d', true],
      ['z1d', false],
    ]);
    // The last day's edge is the local month's first midnight.
    expect(starts!.map((r) => r.res)).toEqual(['z1m', 'z1m']);
  });

  it('leaves out the edges of days not compacted through, and of months not grouped', () => {
    const reads = [first, first + 1].flatMap(edgeReads);
    // Day first + 1 compacted up to 22:00 only: its edge (to 24:00) is written without its month.
    expect(
      monthEdgeGroups(reads, new Set([month]), (first + 1) * 24 + 22)
        .get(month)!
        .flat(),
    ).toEqual(edgeReads(first));
    expect(monthEdgeGroups(reads, new Set([month + 1]), last * 24).size).toBe(0);
    expect(monthEdgeGroups(reads, new Set([month]), null).size).toBe(0);
  });
});

describe('recordedSections', () => {
  const v = (n: number) => Buffer.from([0, 0, 0, 0, 0, 0, 0, n]);
  const recorded = {
    version: v(9),
    children: new Map<number, Buffer | null>([
      [first, v(1)],
      [first + 1, null],
      [first + 2, v(3)],
    ]),
  };
  const cache = new Map([
    [first, { version: v(1), section: 'one' }],
    [first + 2, { version: v(3), section: 'three' }],
  ]);

  it('gives the cached sections of recorded days (null: a day recorded without section)', () => {
    expect(recordedSections(recorded, indexes(daysFrom(first, 3)), (d) => cache.get(d))).toEqual([
      'one',
      null,
      'three',
    ]);
    expect(recordedSections(recorded, [first + 2], (d) => cache.get(d))).toEqual(['three']);
  });

  it('gives nothing when a day was not recorded, or its cached copy is gone or another version', () => {
    expect(recordedSections(recorded, indexes(daysFrom(first, 4)), (d) => cache.get(d))).toBeUndefined();
    expect(recordedSections(recorded, indexes(daysFrom(first, 3)), () => undefined)).toBeUndefined();
    const newer = (d: number) => (d === first ? { version: v(2), section: 'newer' } : cache.get(d));
    expect(recordedSections(recorded, indexes(daysFrom(first, 3)), newer)).toBeUndefined();
  });
});

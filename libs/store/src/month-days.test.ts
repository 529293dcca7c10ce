import { describe, expect, it } from 'vitest';
import { daysOfMonth, monthOfDay, type BucketRead } from '@va/core';
import { MONTH_DAYS_MIN, monthDayGroups, recordedSections } from './month-days';

const day = (index: number, subtract?: true): BucketRead => ({
  res: 'd',
  index,
  slice: index * 86_400_000,
  ...(subtract && { subtract }),
});
const [first, last] = daysOfMonth(monthOfDay(20_500));
const LENGTH = last - first + 1;
const daysFrom = (start: number, count: number) => Array.from({ length: count }, (_, n) => day(start + n));

describe('monthDayGroups', () => {
  it('groups the plain day reads of each month, from MONTH_DAYS_MIN on', () => {
    const reads = [...daysFrom(first, LENGTH), ...daysFrom(first - MONTH_DAYS_MIN, MONTH_DAYS_MIN)];
    const groups = monthDayGroups(reads);
    expect([...groups.keys()].sort()).toEqual([monthOfDay(first - 1), monthOfDay(first)].sort());
    expect(groups.get(monthOfDay(first))!.map((r) => r.index)).toEqual(
      daysFrom(first, LENGTH).map((r) => r.index),
    );
    expect(monthDayGroups(daysFrom(first, MONTH_DAYS_MIN - 1)).size).toBe(0);
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

describe('recordedSections', () => {
  const v = (n: number) => Buffer.from([0, 0, 0, 0, 0, 0, 0, n]);
  const recorded = {
    version: v(9),
    days: new Map<number, Buffer | null>([
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
    expect(recordedSections(recorded, daysFrom(first, 3), (d) => cache.get(d))).toEqual([
      'one',
      null,
      'three',
    ]);
    expect(recordedSections(recorded, [day(first + 2)], (d) => cache.get(d))).toEqual(['three']);
  });

  it('gives nothing when a day was not recorded, or its cached copy is gone or another version', () => {
    expect(recordedSections(recorded, daysFrom(first, 4), (d) => cache.get(d))).toBeUndefined();
    expect(recordedSections(recorded, daysFrom(first, 3), () => undefined)).toBeUndefined();
    const newer = (d: number) => (d === first ? { version: v(2), section: 'newer' } : cache.get(d));
    expect(recordedSections(recorded, daysFrom(first, 3), newer)).toBeUndefined();
  });
});

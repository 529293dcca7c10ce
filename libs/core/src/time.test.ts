import { MAX_TIME_MS } from '@va/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closedBoundAt,
  DAY_MS,
  dayOf,
  dayOfHour,
  daysOfMonth,
  hourOf,
  hoursOfDay,
  hoursOfMonth,
  hourStart,
  monthOf,
  monthOfDay,
  monthOfHour,
  monthStart,
  sliceStartOfHour,
  sliceStarts,
} from './time';

const utc = (y: number, mo: number, d = 1, h = 0, mi = 0, s = 0, ms = 0) =>
  Date.UTC(y, mo - 1, d, h, mi, s, ms);
const monthIndex = (y: number, mo: number) => (y - 1970) * 12 + mo - 1;

describe('time: hours and days', () => {
  it('truncates to the hour and day, UTC', () => {
    expect(hourStart(hourOf(utc(2026, 3, 2, 9, 5)))).toBe(utc(2026, 3, 2, 9));
    expect(hourStart(hourOf(utc(2026, 3, 2, 9, 59, 59, 999)))).toBe(utc(2026, 3, 2, 9));
    expect(dayOf(utc(2026, 3, 2, 23, 59, 59, 999)) * DAY_MS).toBe(utc(2026, 3, 2));
    expect(hourOf(0)).toBe(0);
    expect(dayOfHour(23)).toBe(0);
    expect(dayOfHour(24)).toBe(1);
  });

  it('hoursOfDay spans 24 hours', () => {
    const d = dayOf(utc(2024, 2, 29));
    expect(hoursOfDay(d).map(hourStart)).toEqual([utc(2024, 2, 29), utc(2024, 2, 29, 23)]);
  });
});

describe('time: months', () => {
  it('indexes months from January 1970', () => {
    expect(monthOf(0)).toBe(0);
    expect(monthOf(utc(1970, 12, 31, 23, 59, 59, 999))).toBe(11);
    expect(monthOf(utc(1971, 1))).toBe(12);
    expect(monthOf(utc(2026, 3, 2))).toBe(monthIndex(2026, 3));
  });

  it('splits at the year boundary', () => {
    expect(monthOf(utc(2025, 12, 31, 23, 59, 59, 999))).toBe(monthIndex(2025, 12));
    expect(monthOf(utc(2026, 1, 1))).toBe(monthIndex(2026, 1));
    expect(monthStart(monthIndex(2026, 1))).toBe(utc(2026, 1, 1));
    expect(monthStart(monthIndex(2025, 12) + 1)).toBe(utc(2026, 1, 1));
  });

  it('knows leap years: 2024 and 2000 are, 2023 and 2100 are not', () => {
    const days = (y: number, mo: number) => {
      const [first, last] = daysOfMonth(monthIndex(y, mo));
      return last - first + 1;
    };
    expect(days(2024, 2)).toBe(29);
    expect(days(2000, 2)).toBe(29);
    expect(days(2023, 2)).toBe(28);
    expect(days(2100, 2)).toBe(28);
    expect(days(2025, 12)).toBe(31);
    expect(days(2025, 4)).toBe(30);
    expect(monthOf(utc(2024, 2, 29, 23, 59, 59, 999))).toBe(monthIndex(2024, 2));
    expect(monthOf(utc(2024, 3, 1))).toBe(monthIndex(2024, 3));
  });

  it('hoursOfMonth gives the first and last hour', () => {
    const [first, last] = hoursOfMonth(monthIndex(2024, 2));
    expect(hourStart(first)).toBe(utc(2024, 2, 1));
    expect(hourStart(last)).toBe(utc(2024, 2, 29, 23));
    expect(last - first + 1).toBe(29 * 24);
  });

  it('monthOfHour and monthOfDay agree with monthOf', () => {
    const h = hourOf(utc(2024, 2, 29, 23));
    expect(monthOfHour(h)).toBe(monthIndex(2024, 2));
    expect(monthOfHour(h + 1)).toBe(monthIndex(2024, 3));
    expect(monthOfDay(dayOf(utc(2024, 2, 29)))).toBe(monthIndex(2024, 2));
  });

  it('reaches year 9999', () => {
    expect(monthOf(MAX_TIME_MS)).toBe(monthIndex(9999, 12));
    expect(hoursOfMonth(monthIndex(9999, 12))[1]).toBe(hourOf(MAX_TIME_MS));
  });

  it('property: months partition the timeline and round-trip', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: monthIndex(9999, 12) }), (m) => {
        expect(monthOf(monthStart(m))).toBe(m);
        expect(monthOf(monthStart(m + 1) - 1)).toBe(m);
        expect(hoursOfMonth(m)[1] + 1).toBe(hoursOfMonth(m + 1)[0]);
        expect(daysOfMonth(m)[1] + 1).toBe(daysOfMonth(m + 1)[0]);
        const days = daysOfMonth(m)[1] - daysOfMonth(m)[0] + 1;
        expect(days).toBeGreaterThanOrEqual(28);
        expect(days).toBeLessThanOrEqual(31);
      }),
    );
  });
});

describe('time: slices', () => {
  const h = hourOf(utc(2024, 2, 29, 15, 30));

  it('sliceStartOfHour: the start of the hour, day or month holding the hour', () => {
    expect(sliceStartOfHour(h, 'hour')).toBe(utc(2024, 2, 29, 15));
    expect(sliceStartOfHour(h, 'day')).toBe(utc(2024, 2, 29));
    expect(sliceStartOfHour(h, 'month')).toBe(utc(2024, 2, 1));
  });

  it('sliceStarts: from the slice of the start to the slice of the end, inclusive', () => {
    expect(sliceStarts(h, h, 'hour')).toEqual([utc(2024, 2, 29, 15)]);
    expect(sliceStarts(h, h + 2, 'hour')).toEqual([15, 16, 17].map((x) => utc(2024, 2, 29, x)));
    // start mid-day: the first slice is that day's 00:00
    expect(sliceStarts(h, h + 9, 'day')).toEqual([utc(2024, 2, 29), utc(2024, 3, 1)]);
    expect(sliceStarts(hourOf(utc(2025, 11, 30)), hourOf(utc(2026, 2, 1)), 'month')).toEqual([
      utc(2025, 11, 1),
      utc(2025, 12, 1),
      utc(2026, 1, 1),
      utc(2026, 2, 1),
    ]);
  });

  it('property: every hour of the range lies in exactly one slice', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: hourOf(utc(2100, 1)) }),
        fc.integer({ min: 0, max: 24 * 70 }),
        fc.constantFrom('hour' as const, 'day' as const, 'month' as const),
        (start, length, granularity) => {
          const starts = sliceStarts(start, start + length, granularity);
          for (let i = 1; i < starts.length; i++) expect(starts[i]!).toBeGreaterThan(starts[i - 1]!);
          expect(starts[0]).toBe(sliceStartOfHour(start, granularity));
          expect(starts.at(-1)).toBe(sliceStartOfHour(start + length, granularity));
          const slicesOfRange = new Set<number>();
          for (let x = start; x <= start + length; x += 7)
            slicesOfRange.add(sliceStartOfHour(x, granularity));
          for (const s of slicesOfRange) expect(starts).toContain(s);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('closedBoundAt', () => {
  const H = (iso: string) => Math.floor(Date.parse(iso) / 3_600_000);
  it('is the last hour that ended at least the grace period ago', () => {
    // 10:04 with 5 minutes of grace: 09:00-10:00 ended only 4 minutes ago, so 08:00 is the last.
    expect(closedBoundAt(Date.parse('2027-01-01T10:04:00Z'), 5 * 60_000)).toBe(H('2027-01-01T08:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T10:05:00Z'), 5 * 60_000)).toBe(H('2027-01-01T09:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T10:00:00Z'), 0)).toBe(H('2027-01-01T09:00:00Z'));
    expect(closedBoundAt(Date.parse('2027-01-01T09:59:59.999Z'), 0)).toBe(H('2027-01-01T08:00:00Z'));
  });
});

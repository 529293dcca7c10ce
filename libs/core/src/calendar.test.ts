import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  edgesOnHours,
  firstHourOfSlice,
  localDayOf,
  localDayStart,
  localMonthOf,
  localMonthStart,
  offsetAt,
  resolveTimeZone,
  SliceCursor,
  sliceIndexOfHour,
  sliceStartsIn,
} from './calendar';
import { dayOf, hourOf, monthOf, sliceStarts } from './time';

const H = 3_600_000;
const day = (y: number, m: number, d: number) => dayOf(Date.UTC(y, m - 1, d));
const month = (y: number, m: number) => monthOf(Date.UTC(y, m - 1, 1));
const iso = (ms: number) => new Date(ms).toISOString();

describe('calendar: local days and months', () => {
  it('New York 2026: March 8 has 23 hours, November 1 has 25', () => {
    const z = 'America/New_York';
    expect(iso(localDayStart(z, day(2026, 3, 8)))).toBe('2026-03-08T05:00:00.000Z');
    expect(iso(localDayStart(z, day(2026, 3, 9)))).toBe('2026-03-09T04:00:00.000Z');
    expect(localDayStart(z, day(2026, 3, 9)) - localDayStart(z, day(2026, 3, 8))).toBe(23 * H);
    expect(localDayStart(z, day(2026, 11, 2)) - localDayStart(z, day(2026, 11, 1))).toBe(25 * H);
    expect(iso(localMonthStart(z, month(2026, 3)))).toBe('2026-03-01T05:00:00.000Z');
    expect(iso(localMonthStart(z, month(2026, 4)))).toBe('2026-04-01T04:00:00.000Z');
  });

  it('Kathmandu (+05:45) and Kolkata (+05:30) days start inside a UTC hour', () => {
    expect(iso(localDayStart('Asia/Kathmandu', day(2026, 1, 1)))).toBe('2025-12-31T18:15:00.000Z');
    expect(iso(localMonthStart('Asia/Kathmandu', month(2026, 2)))).toBe('2026-01-31T18:15:00.000Z');
    expect(iso(localDayStart('Asia/Kolkata', day(2026, 1, 1)))).toBe('2025-12-31T18:30:00.000Z');
    expect(offsetAt('Pacific/Chatham', Date.UTC(2026, 0, 1))).toBe(13.75 * H);
    expect(offsetAt('America/St_Johns', Date.UTC(2026, 0, 1))).toBe(-3.5 * H);
  });

  it('Lord Howe: +11 in its summer, +10:30 in winter (a 30-minute DST change)', () => {
    const z = 'Australia/Lord_Howe';
    expect(iso(localDayStart(z, day(2026, 1, 15)))).toBe('2026-01-14T13:00:00.000Z');
    expect(iso(localDayStart(z, day(2026, 7, 15)))).toBe('2026-07-14T13:30:00.000Z');
  });

  it('a skipped midnight starts the day where the jump lands; a skipped day has no slice', () => {
    // Asia/Beirut moves its clocks from 00:00 to 01:00 on the last Sunday of March.
    expect(iso(localDayStart('Asia/Beirut', day(2026, 3, 29)))).toBe('2026-03-28T22:00:00.000Z');
    // Pacific/Apia skipped 30 December 2011: the 31st began at 10:00Z on the 30th.
    const z = 'Pacific/Apia';
    expect(localDayStart(z, day(2011, 12, 30))).toBe(localDayStart(z, day(2011, 12, 31)));
    const a = hourOf(Date.UTC(2011, 11, 29, 12));
    const days = sliceStartsIn(a, a + 72, 'day', z).map(iso);
    expect(new Set(days).size).toBe(days.length);
    expect(days).toContain('2011-12-30T10:00:00.000Z');
  });

  it('in UTC, every function is time.ts arithmetic', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 3000 }), (h, len) => {
        for (const g of ['hour', 'day', 'month'] as const) {
          expect(sliceStartsIn(h, h + len, g)).toEqual(sliceStarts(h, h + len, g));
          expect(sliceStartsIn(h, h + len, g, 'UTC')).toEqual(sliceStarts(h, h + len, g));
        }
      }),
    );
  });

  it('a zone slice holds exactly the hours whose start lies in it; the cursor agrees', () => {
    const zones = ['America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Chatham'];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom('day' as const, 'month' as const),
        fc.integer({ min: hourOf(Date.UTC(2025, 0, 1)), max: hourOf(Date.UTC(2027, 0, 1)) }),
        (zone, g, h) => {
          const i = sliceIndexOfHour(h, g, zone);
          expect(firstHourOfSlice(i, g, zone)).toBeLessThanOrEqual(h);
          expect(firstHourOfSlice(i + 1, g, zone)).toBeGreaterThan(h);
          expect(new SliceCursor(g, zone).indexOfHour(h)).toBe(i);
          const local = new Date(h * H + offsetAt(zone, h * H));
          const localDay = dayOf(local.getTime());
          if (g === 'day') expect(i).toBe(localDay);
          else expect(i).toBe(monthOf(local.getTime()));
          expect(localDayOf(zone, h * H)).toBe(localDay);
          expect(localMonthOf(zone, h * H)).toBe(monthOf(local.getTime()));
        },
      ),
    );
  });
});

describe('calendar: edgesOnHours', () => {
  const a = hourOf(Date.UTC(2026, 0, 1));
  const b = hourOf(Date.UTC(2026, 11, 31));
  it('whole-hour zones, DST included: every edge on an hour', () => {
    for (const z of ['UTC', 'America/New_York', 'Europe/Berlin']) {
      expect(edgesOnHours(a, b, 'day', z)).toBe(true);
      expect(edgesOnHours(a, b, 'month', z)).toBe(true);
    }
  });
  it('offsets that are not whole hours: an edge inside an hour, unless the range holds none', () => {
    for (const z of ['Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham']) {
      expect(edgesOnHours(a, b, 'day', z)).toBe(false);
      expect(edgesOnHours(a, b, 'month', z)).toBe(false);
      expect(edgesOnHours(a, b, 'hour', z)).toBe(true);
    }
    const ktm = localDayStart('Asia/Kathmandu', day(2026, 5, 5));
    const first = Math.ceil(ktm / H);
    expect(edgesOnHours(first, first + 22, 'day', 'Asia/Kathmandu')).toBe(true);
    expect(edgesOnHours(first, first + 23, 'day', 'Asia/Kathmandu')).toBe(false); // holds the next 00:00
    expect(edgesOnHours(first - 1, first + 5, 'day', 'Asia/Kathmandu')).toBe(false); // hour first-1 holds 00:00
  });
  it('Lord Howe: exact in its summer (+11), not in winter (+10:30)', () => {
    const z = 'Australia/Lord_Howe';
    expect(edgesOnHours(hourOf(Date.UTC(2026, 0, 5)), hourOf(Date.UTC(2026, 1, 20)), 'day', z)).toBe(true);
    expect(edgesOnHours(hourOf(Date.UTC(2026, 5, 5)), hourOf(Date.UTC(2026, 6, 20)), 'day', z)).toBe(false);
  });
});

describe('resolveTimeZone', () => {
  it('knows IANA names in any case, UTC under its names, and nothing else', () => {
    expect(resolveTimeZone('america/new_york')).toBe('America/New_York');
    expect(resolveTimeZone('Etc/UTC')).toBe('UTC');
    expect(resolveTimeZone('Mars/Olympus')).toBe(null);
    expect(resolveTimeZone('+05:30')).toBe(null);
  });

  it('asks Intl once per name (60–110 µs a formatter), valid or not, and answers the same after', () => {
    const made = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      for (let i = 0; i < 3; i++) {
        expect(resolveTimeZone('Pacific/Chatham')).toBe('Pacific/Chatham');
        expect(resolveTimeZone('Mars/Phobos')).toBe(null);
      }
      expect(made).toHaveBeenCalledTimes(2);
      // Past its bound the memory starts again: still the same answers.
      for (let i = 0; i < 1_100; i++) expect(resolveTimeZone(`Nowhere/N${i}`)).toBe(null);
      expect(resolveTimeZone('Pacific/Chatham')).toBe('Pacific/Chatham');
    } finally {
      made.mockRestore();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { axisLabel, formatSlice, tickSlices } from './chart-labels';

describe('chart labels', () => {
  it('are UTC: times of day with the date at midnight, dates, months', () => {
    const t = Date.UTC(2026, 10, 23, 14) / 1000;
    expect(axisLabel(t, 'hour')).toBe('14:00');
    expect(axisLabel(Date.UTC(2026, 10, 23) / 1000, 'hour')).toBe('11-23');
    expect(axisLabel(t, 'day')).toBe('11-23');
    expect(axisLabel(t, 'month')).toBe('2026-11');
    expect(formatSlice(t, 'hour')).toBe('2026-11-23 14:00 UTC');
    expect(formatSlice(t, 'day')).toBe('2026-11-23');
  });
});

describe('tickSlices', () => {
  const hours = (from: number, n: number) => Array.from({ length: n }, (_, i) => (from + i) * 3600);
  const day0 = Date.UTC(2026, 10, 22) / 3600000;

  it('ticks every hour for a few hours, on round hours (midnight included) for a day', () => {
    expect(tickSlices(hours(day0 + 5, 6), 'hour')).toEqual(hours(day0 + 5, 6));
    const ticks = tickSlices(hours(day0 + 13, 25), 'hour');
    expect(ticks.length).toBeLessThanOrEqual(12);
    expect(ticks).toContain((day0 + 24) * 3600);
    expect(ticks.every((t) => (t / 3600) % 3 === 0)).toBe(true);
  });

  it('ticks minutes on round minutes: every 30 over 3 hours', () => {
    const minutes = Array.from({ length: 181 }, (_, i) => (day0 * 60 + 13 * 60 + 7 + i) * 60);
    const ticks = tickSlices(minutes, 'minute');
    expect(ticks.length).toBeLessThanOrEqual(12);
    expect(ticks.every((t) => (t / 60) % 30 === 0 && minutes.includes(t))).toBe(true);
    expect(axisLabel(minutes[0]!, 'minute')).toBe('13:07');
  });

  it('keeps to about a dozen ticks over long ranges, all of them slice starts', () => {
    const week = hours(day0, 24 * 30);
    const ticks = tickSlices(week, 'hour');
    expect(ticks.length).toBeLessThanOrEqual(12);
    expect(ticks.every((t) => week.includes(t))).toBe(true);
    const days = Array.from({ length: 90 }, (_, i) => (day0 + 24 * i) * 3600);
    expect(tickSlices(days, 'day').length).toBeLessThanOrEqual(12);
    expect(tickSlices(days.slice(0, 2), 'day')).toEqual(days.slice(0, 2));
  });
});

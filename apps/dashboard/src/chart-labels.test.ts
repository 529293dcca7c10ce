import { describe, expect, it } from 'vitest';
import { axisLabel, formatSlice } from './chart-labels';

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

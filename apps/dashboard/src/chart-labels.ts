/** Time labels of the chart, always UTC (the API's slices are UTC minutes, hours, days and months). Pure. */
import type { Granularity } from '@va/contracts';

export function formatSlice(seconds: number, granularity: Granularity): string {
  const iso = new Date(seconds * 1000).toISOString();
  if (granularity === 'month') return iso.slice(0, 7);
  if (granularity === 'day') return iso.slice(0, 10);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Tick labels in UTC, 24-hour: times of day, with the date at midnight; dates; months. */
export function axisLabel(seconds: number, granularity: Granularity): string {
  const iso = new Date(seconds * 1000).toISOString();
  if (granularity === 'month') return iso.slice(0, 7);
  if (granularity === 'day' || iso.slice(11, 16) === '00:00') return iso.slice(5, 10);
  return iso.slice(11, 16);
}

const HOUR_STEPS = [1, 2, 3, 4, 6, 12, 24];
const MINUTE_STEPS = [1, 2, 5, 10, 15, 30, 60];

/**
 * Which slices get a tick: slice starts only (never between bars), at most about `max` of them. Hour ticks
 * fall on hours divisible by the step, so midnight (labelled with the date) is always one of them; minute
 * ticks on minutes divisible by theirs (5, 10, 15, 30 or 60).
 */
export function tickSlices(times: readonly number[], granularity: Granularity, max = 12): number[] {
  if (granularity === 'minute') {
    const step = MINUTE_STEPS.find((s) => times.length / s <= max) ?? 60;
    return times.filter((t) => (t / 60) % step === 0);
  }
  if (granularity === 'hour') {
    const step = HOUR_STEPS.find((s) => times.length / s <= max) ?? 24;
    const ticks = times.filter((t) => (t / 3600) % step === 0);
    if (ticks.length <= max) return ticks;
    const every = Math.ceil(ticks.length / max);
    return ticks.filter((t) => (t / 3600 / 24) % every === 0);
  }
  const every = Math.max(1, Math.ceil(times.length / max));
  return times.filter((_, i) => i % every === 0);
}

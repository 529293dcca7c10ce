/** Time labels of the chart, always UTC (the API's slices are UTC hours, days and months). Pure. */
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

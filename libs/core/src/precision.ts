/**
 * The header X-Precision of an answer (docs/api.md#retention, #time-zones), from its two sources:
 * rollups answering hours past the hour retention ('day', 'month'), and slice edges of a time zone
 * that fall inside a UTC hour older than the minute buckets keep ('hour': each count is exact to the
 * UTC hour only; edge-minutes.ts splits the newer ones exactly). Without the header every count is exact.
 */
import type { HourGranularity } from '@va/contracts';

export type XPrecision = 'hour' | 'day' | 'month';

/**
 * @param rollups the coarsest resolution answering part of the range less exactly than asked
 *   ('hour': none did; the planner's and the oracle's `precision`)
 * @param edgesOnHours every slice edge inside the range falls on a UTC hour (calendar.ts) or inside
 *   one that minute buckets split (edge-minutes.ts: the plan's `edgesOnHours`)
 */
export function precisionHeader(rollups: HourGranularity, edgesOnHours: boolean): XPrecision | null {
  if (rollups !== 'hour') return rollups;
  return edgesOnHours ? null : 'hour';
}

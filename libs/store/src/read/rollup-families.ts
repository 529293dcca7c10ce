/**
 * The rollups around a query's bucket reads (pure): which rollup family each read is in, for the atomic calls
 * of chunksOf (units.ts), and whether a compaction between plan and read can change what the reads count.
 */
import { dayOfHour, isEdgeResolution, lastHourOf, monthOfDay, monthOfHour, type BucketRead } from '@va/core';

/**
 * Whether a compaction between plan and read can change what the reads count, so that every call
 * must be read atomically with the compaction point and checked against the plan's:
 *   - an hour bucket is read beside the day or month rollup around it (or a day beside its
 *     month): a compaction in between would count that hour twice;
 *   - a rollup is open (its last hour is after the compaction point): it holds the hours up to
 *     the point, which the plan may have counted on; a compaction in between adds the next hour,
 *     which may lie past the range's end (a month read for "through yesterday" while the point
 *     is at the end of the range) or be read from its own bucket by a later call.
 */
export function readsDependOnCompaction(
  reads: readonly BucketRead[],
  compactedThrough: number | null,
): boolean {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    // A minute is in no rollup, and a billing zone's edge neither: compaction never moves its counts.
    if (r.res === 'h' || r.res === 'n' || isEdgeResolution(r.res)) continue;
    if (compactedThrough === null || lastHourOf(r.res, r.index) > compactedThrough) return true;
    (r.res === 'd' ? days : months).add(r.index);
  }
  if (days.size === 0 && months.size === 0) return false;
  for (const r of reads) {
    if (r.res === 'h' && (days.has(dayOfHour(r.index)) || months.has(monthOfHour(r.index)))) return true;
    if (r.res === 'd' && months.has(monthOfDay(r.index))) return true;
  }
  return false;
}

/** The days and months `reads` read (their rollups: chunksOf's families). */
export function rollupsRead(reads: readonly BucketRead[]): { days: Set<number>; months: Set<number> } {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    if (r.res === 'd') days.add(r.index);
    else if (r.res === 'm') months.add(r.index);
  }
  return { days, months };
}

/**
 * The coarsest rollup read around a bucket (see chunksOf), as its family: its month when the month
 * rollup is read, else its day when the day rollup is read; undefined when neither (and for a
 * minute, which is in no rollup).
 */
export function rollupFamily(read: BucketRead, days: Set<number>, months: Set<number>): string | undefined {
  if (read.res === 'n' || isEdgeResolution(read.res)) return undefined;
  const month =
    read.res === 'm' ? read.index : read.res === 'd' ? monthOfDay(read.index) : monthOfHour(read.index);
  if (months.has(month)) return `m${month}`;
  if (read.res === 'm') return undefined;
  const day = read.res === 'd' ? read.index : dayOfHour(read.index);
  return days.has(day) ? `d${day}` : undefined;
}

/**
 * A month of day buckets checked as one (docs/store-v2.md "A month of days at once"; pure, no I/O).
 *
 * A query by day over a long range reads one bucket per day, and each costs Redis a version check
 * and a look at its delta sets even when the reader holds every section already: a year by day was
 * 3.8 times a month. The reader instead records, after a read that saw a month M and every day of M
 * it read without any delta, M's version and each day's section version (`MonthDays`). While M
 * still has that version and no delta, no day of M has changed since:
 *
 * - every write to a day's counters writes its month in the same script, while the month is kept
 *   (applyApiBatch for compacted hours, compactNextHour; both skip only a bucket past its expiry,
 *   and an expired month has no version to match), so M gets a delta, and M can lose it only
 *   through a seal, which gives M a new version;
 * - the days had no delta when recorded, so none was sealed since (a seal without delta keeps the
 *   counts: the cached copy holds the same counts under the older version).
 *
 * So a later read checks M alone (readBuckets' M item) and sums the cached day sections; when the
 * check fails it reads those days one by one, and records them again.
 */
import { monthOfDay, type BucketRead } from '@va/core';

/** What a reader recorded of a month's days (kept by the section cache, section-cache.ts). */
export interface MonthDays {
  /** Version bytes of the month's t section when the days were read. */
  version: Buffer;
  /** Per day index read then: the version bytes of its section of the cube, or null (none). */
  days: ReadonlyMap<number, Buffer | null>;
}

/** A month's days are read as one from this many day reads on (below, one check saves little). */
export const MONTH_DAYS_MIN = 3;

/**
 * The day reads of `reads` that can go as one per month: plain (not subtracted) day reads of a
 * month whose own rollup the plan does not read, MONTH_DAYS_MIN of them at least.
 */
export function monthDayGroups(reads: readonly BucketRead[]): Map<number, BucketRead[]> {
  const byMonth = new Map<number, BucketRead[]>();
  const excluded = new Set<number>();
  for (const read of reads) {
    if (read.res === 'm') excluded.add(read.index);
    if (read.res !== 'd') continue;
    const month = monthOfDay(read.index);
    if (read.subtract) excluded.add(month);
    const days = byMonth.get(month);
    if (days) days.push(read);
    else byMonth.set(month, [read]);
  }
  for (const [month, days] of byMonth) {
    if (excluded.has(month) || days.length < MONTH_DAYS_MIN) byMonth.delete(month);
  }
  return byMonth;
}

/**
 * The cached sections of `days` as recorded in `recorded`, or undefined when any day was not
 * recorded or its cached section is not the recorded version (evicted, or read again since).
 * `cached` gives the reader's copy of a day's section and its version.
 */
export function recordedSections<S>(
  recorded: MonthDays,
  days: readonly BucketRead[],
  cached: (day: number) => { version: Buffer; section: S } | undefined,
): (S | null)[] | undefined {
  const out: (S | null)[] = [];
  for (const read of days) {
    const version = recorded.days.get(read.index);
    if (version === undefined) return undefined;
    if (version === null) {
      out.push(null);
      continue;
    }
    const copy = cached(read.index);
    if (!copy || !copy.version.equals(version)) return undefined;
    out.push(copy.section);
  }
  return out;
}

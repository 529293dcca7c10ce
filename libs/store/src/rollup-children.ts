/**
 * A rollup's children checked as one: a month's days, a day's hours (docs/store-v2.md "A month of
 * days at once", "A day's hours at once"; pure, no I/O).
 *
 * A query reading many buckets of one rollup pays Redis a version check and a look at the delta
 * sets of each, even when the reader holds every section already: a year by day was 3.8 times a
 * month, and a New York day reads its UTC day and ten edge hours (libs/core zone-cover.ts). The
 * reader instead records, after a read that saw a rollup R and every child of R it read without
 * any delta, R's version (of its t section) and each child's section version (`RollupChildren`).
 * While R still has that version and no delta, no recorded child has changed since; so a later
 * read checks R alone (readBuckets' M item) and sums the cached child sections with their signs
 * and slices. When the check fails it reads those children one by one, and records them again.
 *
 * Why no child changed, for a month's days (monthDayGroups):
 * - every write to a day's counters writes its month in the same script, while the month is kept
 *   (applyApiBatch for compacted hours, which never stages a rollup (staged-chunks.ts), and
 *   compactNextHour; both skip only a bucket past its expiry, and an expired month has no version
 *   to match), so M gets a delta, and M can lose it only through a seal, which gives M a new
 *   version;
 * - the days had no delta when recorded, so none was sealed since (a seal without delta keeps the
 *   counts: the cached copy holds the same counts under the older version).
 *
 * For a day's hours (dayHourGroups), compacted hours only:
 * - an hour after the compaction point is written alone (hour-targets.ts bucketsOfHour), so it is
 *   never recorded: the record is made only when every hour is at most the compaction point read
 *   in the same call (cmp never moves back, and compactNextHour writes no hour it compacted);
 * - a compacted hour is written only with its day while the day is kept (bucketsOfHour; an expired
 *   day has no version to match), but not always in the same script: applyApiBatch writes the
 *   day in its own call and may stage the hour's increments (staged-chunks.ts) for later calls.
 *   So the record is also made only while the API's stage is empty: a staged write applied to a
 *   recorded hour was then staged after the record, by a call that gave the day a delta, which only
 *   a seal, with a new version, clears;
 * - the hours had no delta when recorded, as for days;
 * - an hour's keys expire at its end plus the hour retention, and the planner reads a compacted
 *   hour only before then (horizonsAt: h >= hourOf(now - hour retention) exactly while now <
 *   expiresAt('h', h)), so a recorded hour Redis has since removed is not planned, and not served.
 *   (Should the reader's clock lag Redis's, such an hour is served with the counts it held, which
 *   its day still holds: the composed answer is the exact one, where reading Redis would not be.)
 *
 * A rollup that does not exist (no t section, no delta, no seal in progress) is recorded too, with the empty
 * version: every write to a child writes the rollup as above, and a rollup is kept at least as long as its
 * children (libs/config refuses a shorter retention), so while it still does not exist its recorded children
 * hold nothing and none was written. A small API's quiet days are such rollups: its 24 hours by hour were
 * ~70 commands a request, each hour checked alone.
 *
 * A month whose days are grouped also checks the compacted hours of its days the plan reads
 * (monthHourGroups), recorded under the month's version with the same two rules (every hour at
 * most the cmp read in the call, the API's stage empty), so that a zone's month is one check: a
 * compacted hour is written only with its month while the month is kept (bucketsOfHour; an
 * expired month has no version to match), the month's write in the call that stages the hour's,
 * and the month, like a day, loses its delta only through a seal with a new version. A month's
 * days and its hours are two records, each made by an M item of its own (the hours' stage rule
 * does not keep the days from being recorded), and checked by one M item once both are recorded.
 *
 * Such a month checks, the same way, a billing zone's edges (monthEdgeGroups: an Asia/Kolkata month by day
 * reads ~60 of them, each local midnight's edge subtracted from one local day and added to the next) of its
 * days compacted through: an event of such a day writes its month in the call that writes or stages its edges
 * (applyApiBatch's cmp check), and an edge, like an hour, loses a delta only through a seal. So the same two
 * rules record them: every edge's UTC day at most the cmp read in the call, and the API's stage empty. An edge
 * expires with its UTC day's rollup (a month-start edge, later, with a month's), both sooner than its month.
 */
import { dayOfHour, isEdgeResolution, lastHourOf, monthOfDay, monthOfHour, type BucketRead } from '@va/core';

/** What a reader recorded of a rollup's children (kept beside the section cache, section-cache.ts). */
export interface RollupChildren {
  /** Version bytes of the rollup's t section when the children were read. */
  version: Buffer;
  /** Per child index read then: the version bytes of its section of the cube, or null (none). */
  children: ReadonlyMap<number, Buffer | null>;
}

/** A rollup's children are read as one from this many child buckets on (below, one check saves little). */
export const CHILDREN_MIN = 3;

/**
 * The day reads of `reads` that can go as one per month: plain (not subtracted) day reads of a
 * month whose own rollup the plan does not read, CHILDREN_MIN of them at least.
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
    if (excluded.has(month) || days.length < CHILDREN_MIN) byMonth.delete(month);
  }
  return byMonth;
}

/** The reads of hours at most `compactedThrough` (only those are in their day and month), by `groupOf` (undefined: left out). */
function compactedHoursBy(
  reads: readonly BucketRead[],
  compactedThrough: number | null,
  groupOf: (hour: number) => number | undefined,
): Map<number, BucketRead[]> {
  const groups = new Map<number, BucketRead[]>();
  if (compactedThrough === null) return groups;
  for (const read of reads) {
    if (read.res !== 'h' || read.index > compactedThrough) continue;
    const group = groupOf(read.index);
    if (group === undefined) continue;
    const hours = groups.get(group);
    if (hours) hours.push(read);
    else groups.set(group, [read]);
  }
  return groups;
}

/**
 * The hour reads of `reads` that go with their month's days (`months`: monthDayGroups' months):
 * every read of the hours at most `compactedThrough` of those months, however few.
 */
export function monthHourGroups(
  reads: readonly BucketRead[],
  months: ReadonlySet<number>,
  compactedThrough: number | null,
): Map<number, BucketRead[]> {
  return compactedHoursBy(reads, compactedThrough, (hour) => {
    const month = monthOfHour(hour);
    return months.has(month) ? month : undefined;
  });
}

/**
 * A billing zone's edge reads of `reads` that go with their UTC month's days (`months`: monthDayGroups'
 * months), per edge resolution: every read (added or subtracted, repeats) of an edge whose UTC day is
 * compacted through (its last hour at most `compactedThrough`), however few. Such an edge is written like a
 * compacted hour: in the call that writes its month (the cmp check of applyApiBatch) or staged by it.
 */
export function monthEdgeGroups(
  reads: readonly BucketRead[],
  months: ReadonlySet<number>,
  compactedThrough: number | null,
): Map<number, BucketRead[][]> {
  const groups = new Map<number, Map<string, BucketRead[]>>();
  if (compactedThrough === null) return new Map();
  for (const read of reads) {
    if (!isEdgeResolution(read.res)) continue;
    const lastHour = lastHourOf(read.res, read.index);
    const month = monthOfHour(lastHour);
    if (lastHour > compactedThrough || !months.has(month)) continue;
    let byRes = groups.get(month);
    if (!byRes) groups.set(month, (byRes = new Map()));
    const edges = byRes.get(read.res);
    if (edges) edges.push(read);
    else byRes.set(read.res, [read]);
  }
  return new Map([...groups].map(([month, byRes]) => [month, [...byRes.values()]]));
}

/**
 * The hour reads of `reads` that can go as one per UTC day: every read (plain or subtracted, any
 * slice, repeats) of the hours at most `compactedThrough` (only those are in the day), of days
 * with CHILDREN_MIN such hour buckets at least.
 */
export function dayHourGroups(
  reads: readonly BucketRead[],
  compactedThrough: number | null,
): Map<number, BucketRead[]> {
  const byDay = compactedHoursBy(reads, compactedThrough, dayOfHour);
  for (const [day, hours] of byDay) {
    if (childIndexes(hours).length < CHILDREN_MIN) byDay.delete(day);
  }
  return byDay;
}

/** The distinct buckets of `reads`, in order of first read. */
export const childIndexes = (reads: readonly BucketRead[]): number[] => [
  ...new Set(reads.map((read) => read.index)),
];

/**
 * The cached sections of the children `indexes` as recorded in `recorded`, or undefined when any
 * was not recorded or its cached section is not the recorded version (evicted, or read again
 * since). `cached` gives the reader's copy of a child's section and its version (by index, or by
 * position in `indexes`).
 */
export function recordedSections<S>(
  recorded: RollupChildren,
  indexes: readonly number[],
  cached: (index: number, position: number) => { version: Buffer; section: S } | undefined,
): (S | null)[] | undefined {
  const out: (S | null)[] = [];
  for (const [position, index] of indexes.entries()) {
    const version = recorded.children.get(index);
    if (version === undefined) return undefined;
    if (version === null) {
      out.push(null);
      continue;
    }
    const copy = cached(index, position);
    if (!copy || !copy.version.equals(version)) return undefined;
    out.push(copy.section);
  }
  return out;
}

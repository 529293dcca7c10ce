/**
 * Reads and decodes the cells of a plan: readBuckets calls through @va/store, planned again when the
 * compaction point moved between plan and read, holding compaction when it keeps moving.
 */
import {
  lastHourOf,
  type BucketRead,
  type Cell,
  type ParsedQuery,
  type Precision,
  type ReadPlan,
  type TopGroups,
} from '@va/core';
import {
  decodeCells,
  globalKeys,
  holdCompaction,
  readCounts,
  releaseCompaction,
  type CodeCounts,
  type CubeQuery,
  type Projection,
} from '@va/store';
import { parseGeneration } from './one-generation';
import { plannedWith } from './read-plan';
import { fullPlan, type Reader } from './reader';

/** Plans made again when a compaction moved between plan and read; more means a busy compactor. */
const MAX_ATTEMPTS = 5;
/** From this failed attempt on, the reader holds compaction (libs/store holdCompaction). */
const HOLD_AFTER_ATTEMPTS = 2;

/** The total cube, no filter, no group: whether any event lies in the range. */
export const totalCube: CubeQuery = {
  cube: 't',
  keys: null,
  identities: null,
  sets: null,
  group: { key: false, identity: false, set: false },
};

/** What readCells reads of the cube: which plan, which of its reads, which groups. */
export interface ReadCellsOptions {
  /** The plan's granularity (fullPlan); none: the coarse plan. */
  granularity?: ParsedQuery['groupBy']['granularity'];
  /** Only the plan's reads this keeps (a time-ordered limit's edge slices). */
  keep?: (read: BucketRead) => boolean;
  /** A plan made already, used while the compaction point it was made with holds. */
  planned?: ReadPlan;
  /** A top-N by a counter: only its largest groups are decoded (libs/core top-groups.ts). */
  top?: TopGroups;
}

/** Reads and decodes the cells of a plan (optionally only some of its reads), planning again when compaction moves. */
export async function readCells(
  r: Reader,
  cubeQuery: CubeQuery,
  { granularity, keep, planned, top }: ReadCellsOptions = {},
): Promise<{ cells: Cell[]; precision: Precision }> {
  const { redis } = r.deps;
  let holding = false;
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    // Planning a long range in hours takes a while: a plan made already is used while it holds,
    // that is while the compaction point it was made with is the reader's (an earlier read of
    // the same query may have moved it: its reads would then be checked against a point the plan
    // was not made with, and an hour compacted in between counted twice).
    const plan =
      attempt === 1 && planned && plannedWith(planned) === r.compactedThrough
        ? planned
        : fullPlan(r, granularity);
    let reads = keep
      ? plan.reads.filter((read) => lastHourOf(read.res, read.index) >= r.firstDataHour && keep(read))
      : readsWithData(plan.reads, r.firstDataHour);
    // Minute reads in another cube than the hours' (a zone's edge minutes): read first, in cube f.
    const split = apart(cubeQuery) ? byResolution(reads) : undefined;
    const minutes =
      split && split.minutes.length > 0 ? await readMinutes(r, cubeQuery, split.minutes) : undefined;
    if (minutes) reads = split!.hours;
    const read = await readCounts(redis, r.space, r.query.apiId, cubeQuery, reads, r.compactedThrough, {
      ...(r.signal && { signal: r.signal }),
      ...(r.deps.sections && { sections: r.deps.sections }),
      ...(top && { top }),
      // Projected cells (by tag or region) come beside the counts by code, which the minutes' join: buildRows
      // adds both into the same groups, a minute subtracted from a slice included.
      ...projectionOf(r),
      ...(r.witness && { readAfter: globalKeys(r.space.prefix).generation }),
    });
    if (read.ok) {
      if (r.witness && read.after !== undefined) r.witness.after = parseGeneration(read.after);
      if (holding) await releaseCompaction(redis, r.space, r.query.apiId);
      r.signal?.throwIfAborted();
      if (minutes) read.counts.add(minutes);
      if (top) read.counts.keepLargest(top);
      const cells = await decodeCells(read.counts, r.dicts);
      if (read.projected) cells.push(...read.projected);
      return { cells, precision: plan.precision };
    }
    if (attempt >= MAX_ATTEMPTS) throw new Error(`compaction kept moving during ${MAX_ATTEMPTS} reads`);
    // Twice moved: a compaction catch-up moves the point every few milliseconds, faster than a
    // plan and its reads. Hold it, for twice what this attempt took (a reader far from Redis or in
    // a busy process takes longer than the shortest hold), and plan against the point it holds.
    if (attempt >= HOLD_AFTER_ATTEMPTS) {
      const holdMs = 2 * (performance.now() - started);
      r.compactedThrough = await holdCompaction(redis, r.space, r.query.apiId, holdMs);
      holding = true;
    } else {
      r.compactedThrough = read.compactedThrough;
    }
  }
}

/**
 * Minute buckets keep the cubes t and f only (libs/core chooseCube): minute reads beside hour reads of
 * cube k, i or s (a time zone's slice edges split by minutes: libs/core edge-minutes.ts) are read in f,
 * which answers every filter and group, and their counts, by the same dictionary codes, added to the hours'.
 */
const apart = (q: CubeQuery): boolean => q.cube !== 't' && q.cube !== 'f';

/**
 * The minute reads' counts in cube f. Read before the hours: an event counted between the two reads is
 * then in its hour and not in its minute, so it counts whole in the hour's slice (as it would without
 * minutes), never below zero.
 */
async function readMinutes(r: Reader, q: CubeQuery, minuteReads: readonly BucketRead[]): Promise<CodeCounts> {
  const { codeCount: _, ...filters } = q;
  const read = await readCounts(
    r.deps.redis,
    r.space,
    r.query.apiId,
    { ...filters, cube: 'f' },
    minuteReads,
    null,
    {
      ...(r.signal && { signal: r.signal }),
    },
  );
  // Minute buckets are in no rollup: their read never depends on the compaction point.
  if (!read.ok) throw new Error('a read of minute buckets depended on the compaction point');
  return read.counts;
}

/**
 * The tag-set dimension's value the query groups by, when it groups by tag alone or by region alone. The
 * store projects the sealed sections of a read onto it where that gives the same rows (the tag-set cube,
 * no filter, no other group, no top-N: libs/store read/projection.ts): a few dozen values per section
 * instead of thousands of tag-set codes.
 */
function projectionOf(r: Reader): { project?: Projection } {
  const { tag, tags, region } = r.query.groupBy;
  if (tags || tag === (region === true)) return {};
  return { project: r.dicts.projection(tag ? 'tag' : 'region') };
}

const withData = new WeakMap<
  readonly BucketRead[],
  { firstDataHour: number; reads: readonly BucketRead[] }
>();

/**
 * The reads of a plan's that can hold data (their last hour at or after the API's first), the same
 * array for the same plan: the store groups a reads array once (libs/store unitsOf), not per request.
 */
function readsWithData(reads: readonly BucketRead[], firstDataHour: number): readonly BucketRead[] {
  const held = withData.get(reads);
  if (held?.firstDataHour === firstDataHour) return held.reads;
  const kept = reads.filter((read) => lastHourOf(read.res, read.index) >= firstDataHour);
  const out = kept.length === reads.length ? reads : kept;
  withData.set(reads, { firstDataHour, reads: out });
  return out;
}

const splits = new WeakMap<
  readonly BucketRead[],
  { hours: readonly BucketRead[]; minutes: readonly BucketRead[] }
>();

/** `reads` cut into its minute reads and the others, once per reads array (as readsWithData). */
function byResolution(reads: readonly BucketRead[]): {
  hours: readonly BucketRead[];
  minutes: readonly BucketRead[];
} {
  let split = splits.get(reads);
  if (!split) {
    split = {
      hours: reads.filter((read) => read.res !== 'n'),
      minutes: reads.filter((read) => read.res === 'n'),
    };
    splits.set(reads, split);
  }
  return split;
}

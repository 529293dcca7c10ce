/**
 * The rows of an authorized, valid query: load dictionaries and meta, bound the rows (libs/core
 * boundRows), plan (planReads), read counters (libs/store), build rows (buildRows).
 *
 * Round trips: meta + dictionary tails (one flush); counters (readBuckets calls in rounds, each
 * atomic with the compaction point, sections only when the cache's copy is not current; planned
 * again if the compaction point moved).
 *
 * Work follows the answer, not the range:
 *   - a request whose rows certainly exceed the cap is refused before any counter is read, or
 *     after reading only the range's groups from the coarsest buckets (one row per group);
 *   - a limit in time order (no orderBy, or orderBy=time) needs the groups of the whole range
 *     but the counters of only the first (or last) ceil(limit / groups) slices: when the range
 *     has many more slices, the groups come from the coarse read and only those slices' buckets
 *     are read (`groupBy=hour&start=0&limit=...` reads nothing from before the data).
 * A request whose reads would cost more than QUERY_MAX_COST is refused before they are made
 * (cost-refusal.ts), on the caller's thread (refuseEarly) before a worker would spend it.
 * Every Redis call checks the request's AbortSignal first: an aborted request reads no more.
 * Then `<p>:gen` once more: an answer is kept only when the generation it read is still current
 * (one-generation.ts; a rebuild deletes the old generation after its switch).
 */
import {
  buildRowsJson,
  chooseSlices,
  countedCells,
  edgeMinuteSlices,
  edgeSlices,
  everyEventHasAGroup,
  groupCount,
  lastHourOf,
  precisionHeader,
  rowCapError,
  sliceCount,
  timeOrdered,
  topGroupsOf,
  type BucketRead,
  type BuildRowsOptions,
  type Cell,
  type ParsedQuery,
  type Precision,
  type RowsJson,
  type XPrecision,
} from '@va/core';
import type { KeySpace } from '@va/store';
import type { ReadDeps } from './deps';
import { refuseCostly } from './cost-refusal';
import { onOneGeneration, type GenerationWitness } from './one-generation';
import { readCells, totalCube } from './read-cells';
import { fullPlan, prepare, tooManyRows, type Prepared, type Reader } from './reader';
import type { Prefetched } from './start';

export { overCapFromRange } from './reader';

/** The rows of an answer as JSON text, written when asked (buildRowsJson). */
export interface JsonAnswer {
  rows: RowsJson;
  /** 'hour' unless part of the range was answered from day or month rollups. */
  precision: Precision;
  /**
   * The header X-Precision: `precision` when not 'hour', else 'hour' when a slice edge of the
   * query's time zone falls inside a UTC hour of the range older than the minute buckets keep
   * (docs/api.md#time-zones), else null.
   */
  xPrecision: XPrecision | null;
}

/**
 * A time-ordered limit reads the groups from the coarse plan first when the range has this many
 * times more slices than the limit, or the full plan reads this many times more buckets.
 */
const NARROW_FACTOR = 2;

/** What reading needs (a worker of the pool has no use for the read-token keys). */
export type { ReadDeps };

export interface ReadOptions {
  /** The caller refused already what costs too much (refuseEarly): no second estimate. */
  costChecked?: boolean;
  /** The API's meta read with the request's generation in its first round trip (start.ts). */
  prefetched?: Prefetched;
  /** performance.now() when the request arrived (ReadDictionaries.load's `since`). */
  arrived?: number;
  /**
   * Rows this thread may build (read-pool.ts weighQuery `light-if-few`): past them, after the read,
   * readAnswerJson throws RowsForAWorker and the caller hands the query to the pool.
   */
  lightRows?: number;
}

/** A query tried on the main thread whose groups times slices came out over `lightRows`. */
export class RowsForAWorker extends Error {
  constructor(readonly rows: number) {
    super(`${rows} rows are a worker's to build`);
  }
}

/**
 * The refusals that cost next to nothing: slices over the cap (from the range), or slices over
 * the cap and any event in the range (the total cube of the coarsest buckets). Throws the
 * refusal; returns whether the cap question is settled without counting groups.
 */
async function cheapRefusal({ r, bound }: Prepared): Promise<boolean> {
  const { maxRows } = r.deps.config;
  if (bound.kind === 'over') throw tooManyRows(rowCapError(bound.rowCount, maxRows));
  if (bound.kind !== 'countGroups') return true;
  if (bound.groupsAllowed > 0 || !everyEventHasAGroup(r.query)) return false;
  const total = await readCells(r, totalCube);
  if (countedCells(total.cells).length > 0)
    throw tooManyRows(rowCapError(bound.slices, maxRows, { lowerBound: true }));
  return true;
}

/** Refuses what the reads the answer certainly makes would cost over QUERY_MAX_COST (cost-refusal.ts). */
async function costRefusal({ r, cubeQuery }: Prepared): Promise<void> {
  const { deps, space, query, dicts, signal } = r;
  await refuseCostly({ deps, space, query, cubeQuery, dicts, reads: certainReads(r), signal });
  // It may have read section headers: a generation seen before them proves nothing of them.
  if (r.witness) delete r.witness.after;
}

/**
 * Refuses, on the caller's thread, what is over the row cap at next to no cost (see
 * cheapRefusal) and what costs too much (costRefusal); the main thread runs it before handing a
 * heavy query to a worker, so that refusals never queue behind heavy work.
 */
export async function refuseEarly(
  deps: ReadDeps,
  space: KeySpace,
  query: ParsedQuery,
  now: number,
  signal?: AbortSignal,
  arrived?: number,
): Promise<void> {
  await onOneGeneration(deps.redis, space, signal, async (current) => {
    const prepared = await prepare(deps, current, query, now, signal, undefined, arrived);
    await cheapRefusal(prepared);
    await costRefusal(prepared);
  });
}

/** The rows of a query as JSON text, written in pieces (buildRowsJson): what the service sends. */
export async function readAnswerJson(
  deps: ReadDeps,
  space: KeySpace,
  query: ParsedQuery,
  now: number,
  signal?: AbortSignal,
  options: ReadOptions = {},
): Promise<JsonAnswer> {
  const input = await onOneGeneration(deps.redis, space, signal, (current, witness) =>
    readRowsInput(deps, current, query, now, signal, options, witness),
  );
  if (options.lightRows !== undefined) {
    const { slices, groupCells } = input.options;
    const rows = groupCount(query, groupCells ?? input.cells) * (slices?.length ?? 1);
    if (rows > options.lightRows) throw new RowsForAWorker(rows);
  }
  const built = buildRowsJson(query, input.cells, input.options);
  if (!built.ok) throw tooManyRows(built.error);
  const xPrecision = precisionHeader(input.precision, input.edgesOnHours);
  return { rows: built.rows, precision: input.precision, xPrecision };
}

/** What buildRows needs for the answer: the cells read and the slices to show. */
interface RowsInput {
  cells: readonly Cell[];
  options: BuildRowsOptions;
  precision: Precision;
  /** Every slice edge inside the range falls on a UTC hour or in one minute buckets split (ReadPlan.edgesOnHours). */
  edgesOnHours: boolean;
}

async function readRowsInput(
  deps: ReadDeps,
  space: KeySpace,
  query: ParsedQuery,
  now: number,
  signal: AbortSignal | undefined,
  options: ReadOptions,
  witness: GenerationWitness,
): Promise<RowsInput> {
  const { config } = deps;
  const prepared = await prepare(deps, space, query, now, signal, options.prefetched, options.arrived);
  const { r, cubeQuery, bound } = prepared;
  r.witness = witness;
  const startHour = r.startHour;
  const granularity = query.groupBy.granularity;

  // 1. Refuse what is certainly over the cap, or costs too much, before reading counters where the plan tells.
  let wholeRange: Cell[] | undefined;
  const settled = await cheapRefusal(prepared);
  if (!options.costChecked) await costRefusal(prepared);
  if (!settled && bound.kind === 'countGroups') {
    wholeRange = (await readCells(r, cubeQuery)).cells;
    const groups = groupCount(query, wholeRange);
    if (groups > bound.groupsAllowed) {
      throw tooManyRows(rowCapError(groups * bound.slices, config.maxRows));
    }
  }

  // Slice edges inside a UTC hour that minute buckets do not split (the plan's; libs/core edge-minutes.ts).
  const edges = !granularity || fullPlan(r, granularity).edgesOnHours !== false;

  // 2. Without a time granularity the coarse read is the answer's read.
  if (!granularity) {
    // A top-N by a counter builds rows for its largest groups only (libs/core top-groups.ts).
    // Not when two tag-set codes can be one row (the same tags in two regions): the store ranks codes.
    const top = cubeQuery.group.set && r.dicts.hasRegions() ? undefined : topGroupsOf(query, config.maxRows);
    const read = wholeRange
      ? { cells: wholeRange, precision: undefined }
      : await readCells(r, cubeQuery, { top });
    const precision = read.precision ?? fullPlan(r, undefined).precision;
    return {
      cells: read.cells,
      options: rowsOptions(query, read.cells, startHour, config.maxRows),
      precision,
      edgesOnHours: edges,
    };
  }

  // 3. A limit in time order: only the first / last slices' counters, the groups of the range.
  const plan = fullPlan(r, granularity);
  if (narrowsToEdges(r, granularity) && query.limit !== undefined) {
    wholeRange ??= (await readCells(r, cubeQuery, { planned: fullPlan(r, undefined) })).cells;
    const groups = groupCount(query, wholeRange);
    if (groups === 0)
      return { cells: [], options: noRows(config.maxRows), precision: plan.precision, edgesOnHours: edges };
    const count = Math.ceil(query.limit / groups);
    const needed = query.minutes
      ? edgeMinuteSlices(query.minutes, query.order, count)
      : edgeSlices(startHour, query.endHour, granularity, query.order, count, query.timeZone);
    const wanted = new Set(needed);
    const fine = await readCells(r, cubeQuery, {
      granularity,
      keep: (read) => wanted.has(read.slice!),
      planned: plan,
    });
    return {
      cells: fine.cells,
      options: { slices: needed, trimLeading: false, maxRows: config.maxRows, groupCells: wholeRange },
      precision: plan.precision,
      edgesOnHours: edges,
    };
  }

  const read = await readCells(r, cubeQuery, { granularity, planned: plan });
  return {
    cells: read.cells,
    options: rowsOptions(query, read.cells, startHour, config.maxRows),
    precision: read.precision,
    edgesOnHours: edges,
  };
}

/**
 * Whether a time-ordered limit reads the groups from the coarse plan and then only its edge
 * slices (readRowsInput step 3): when the range has many more slices than the limit, or the full
 * plan many more reads than the coarse one.
 */
function narrowsToEdges(r: Reader, granularity: NonNullable<ParsedQuery['groupBy']['granularity']>): boolean {
  const { query, startHour } = r;
  if (!timeOrdered(query) || query.startHour === undefined || query.limit === undefined) return false;
  const slices = query.minutes
    ? query.minutes.end - query.minutes.start + 1
    : sliceCount(startHour, query.endHour, granularity, query.timeZone);
  if (slices > NARROW_FACTOR * query.limit) return true;
  const coarseReads = fullPlan(r, undefined).reads.length;
  return fullPlan(r, granularity).reads.length > NARROW_FACTOR * Math.max(coarseReads, 1);
}

/**
 * The bucket reads the answer certainly makes, as readRowsInput chooses them: the coarse plan's
 * without a granularity or when a time-ordered limit narrows to the edge slices, else the full
 * plan's (a row-cap count of the groups may read the coarse plan too; a lower bound is enough).
 */
function certainReads(r: Reader): BucketRead[] {
  const granularity = r.query.groupBy.granularity;
  const plan =
    !granularity || narrowsToEdges(r, granularity) ? fullPlan(r, undefined) : fullPlan(r, granularity);
  return plan.reads.filter((read) => lastHourOf(read.res, read.index) >= r.firstDataHour);
}

/** A grouped query with no group having data: no rows. */
const noRows = (maxRows: number): BuildRowsOptions => ({ slices: [], trimLeading: false, maxRows });

/** The slices to show (chooseSlices; throws its refusal). */
function rowsOptions(
  query: ParsedQuery,
  cells: readonly Cell[],
  startHour: number,
  maxRows: number,
): BuildRowsOptions {
  const granularity = query.groupBy.granularity;
  if (!granularity) return { slices: null, trimLeading: false, maxRows };
  if (startHour > query.endHour) return noRows(maxRows);
  const choice = chooseSlices({
    startHour,
    endHour: query.endHour,
    granularity,
    ...(query.timeZone !== undefined && { timeZone: query.timeZone }),
    ...(query.minutes && { minutes: query.minutes }),
    fromFirstData: query.startHour === undefined,
    limit: query.limit,
    maxRows,
    dataSlices: cells.flatMap((c) => (c.slice === null ? [] : [c.slice])),
    groupCount: () => groupCount(query, cells),
  });
  if (!choice.ok) throw tooManyRows(rowCapError(choice.rowCount, maxRows));
  return { slices: choice.slices, trimLeading: choice.trimLeading, maxRows };
}

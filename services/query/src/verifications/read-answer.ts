/**
 * The rows of an authorized, valid query: load dictionaries and meta, plan (libs/core
 * planReads), read counters (libs/store), build rows (libs/core buildRows).
 *
 * Round trips: meta + dictionary tails (one flush); parts sets (only when needed); counters
 * (readHashes calls, each atomic with the compaction point; planned again if it moved).
 */
import type { Datapoint } from '@va/contracts';
import {
  buildRows,
  horizonsAt,
  hourOf,
  planReads,
  rowCapError,
  type Cell,
  type ParsedQuery,
  type Precision,
} from '@va/core';
import { decodeCells, readApiMeta, readCounts, type KeySpace } from '@va/store';
import { ApiError } from '../http/api-error';
import type { VerificationsDeps } from './deps';
import { cubeQueryOf, dictionariesOf } from './cube-query';
import { groupCount } from './group-count';
import { chooseSlices } from './slices';

export interface Answer {
  rows: Datapoint[];
  /** 'hour' unless part of the range was answered from day or month rollups (X-Precision). */
  precision: Precision;
}

/** Events may be up to 5 minutes in the future (CONTRACT §2): no hour after that holds data. */
const FUTURE_MS = 5 * 60_000;
/** Plans made again when a compaction moved between plan and read; more means a busy compactor. */
const MAX_ATTEMPTS = 5;

export async function readAnswer(
  deps: VerificationsDeps,
  space: KeySpace,
  query: ParsedQuery,
  now: number,
): Promise<Answer> {
  const { redis, config } = deps;
  const dicts = deps.dictionaries.get(space, query.apiId);
  const [meta] = await Promise.all([
    readApiMeta(redis, space, query.apiId, { firstHour: query.startHour === undefined }),
    dicts.load(dictionariesOf(query)),
  ]);
  const granularity = query.groupBy.granularity;
  const startHour = query.startHour ?? meta.firstHour ?? query.endHour + 1; // no data: an empty range
  const cubeQuery = cubeQueryOf(query, dicts);
  const horizons = horizonsAt(now, config.retention);

  let compactedThrough = meta.compactedThrough;
  for (let attempt = 1; ; attempt++) {
    const plan = planReads({
      startHour,
      endHour: query.endHour,
      ...(granularity && { granularity }),
      compactedThrough,
      horizons,
      dataThroughHour: hourOf(now + FUTURE_MS),
    });
    const read = await readCounts(redis, space, query.apiId, cubeQuery, plan.reads, compactedThrough);
    if (read.ok) {
      const cells = await decodeCells(read.counts, dicts);
      return { rows: rowsOf(query, cells, startHour, config.maxRows), precision: plan.precision };
    }
    if (attempt >= MAX_ATTEMPTS) throw new Error(`compaction kept moving during ${MAX_ATTEMPTS} reads`);
    compactedThrough = read.compactedThrough;
  }
}

const tooManyRows = (error: ReturnType<typeof rowCapError>) =>
  new ApiError('invalid_input', 'The answer would hold too many rows.', [error]);

function rowsOf(query: ParsedQuery, cells: readonly Cell[], startHour: number, maxRows: number): Datapoint[] {
  const granularity = query.groupBy.granularity;
  let slices: number[] | null = null;
  let trimLeading = false;
  if (granularity && startHour > query.endHour) {
    slices = [];
  } else if (granularity) {
    const choice = chooseSlices({
      startHour,
      endHour: query.endHour,
      granularity,
      fromFirstData: query.startHour === undefined,
      limit: query.limit,
      maxRows,
      dataSlices: cells.flatMap((c) => (c.slice === null ? [] : [c.slice])),
      groupCount: () => groupCount(query, cells),
    });
    if (!choice.ok) throw tooManyRows(rowCapError(choice.rowCount, maxRows));
    slices = choice.slices;
    trimLeading = choice.trimLeading;
  }
  const built = buildRows(query, cells, { slices, trimLeading, maxRows });
  if (!built.ok) throw tooManyRows(built.error);
  return built.rows;
}

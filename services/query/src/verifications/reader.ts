/**
 * What a query's reads share: the API's meta and dictionaries loaded, the range's first hour and
 * the rows bounded (prepare), and the plan of the range (fullPlan, memoized per inputs).
 */
import {
  boundRows,
  firstMinuteKept,
  groupsUpperBound,
  firstMonthEdgeDay,
  horizonsAt,
  hourOf,
  hoursOfMonth,
  minuteOf,
  monthOfHour,
  planMinuteReads,
  rowCapError,
  type BillingZonePlan,
  type ParsedQuery,
  type ReadPlan,
  type Retention,
  type RowBound,
} from '@va/core';
import { readApiMeta, type CubeQuery, type KeySpace, type ReadDictionaries } from '@va/store';
import { RowCapError } from '../http/api-error';
import type { ReadDeps } from './deps';
import { cubeQueryOf, dictionariesOf } from './cube-query';
import { groupSources, memoPlan } from './read-plan';
import type { GenerationWitness } from './one-generation';
import type { Prefetched } from './start';

/** Events may be up to 5 minutes in the future (docs/api.md#dead-letters, `future_time`): no hour after that holds data. */
const FUTURE_MS = 5 * 60_000;

export interface Reader {
  deps: ReadDeps;
  space: KeySpace;
  query: ParsedQuery;
  dicts: ReadDictionaries;
  /**
   * First hour of the range: trunc(start), or without it the first hour of the month of the first
   * data. An absent start is no lower bound (docs/api.md#parameters), and nothing is held before that month:
   * a day or month holding the first data is whole, not a rollup widened past the range (which
   * would claim X-Precision: day for an exact answer, and count a past-horizon day at its first
   * requested hour rather than at its start). Rows then begin at the first slice holding data
   * (fromFirstData); reads before the data are skipped (firstDataHour).
   */
  startHour: number;
  /**
   * First hour of the API's earliest bucket holding data (Infinity: none). Buckets that end
   * before it hold nothing: a year asked of an API with 90 days of data reads 90 days.
   */
  firstDataHour: number;
  now: number;
  compactedThrough: number | null;
  /** Since when the query's billing zone's edges are counted (ApiMeta.billingSince); null: not a billing zone. */
  billingSince: number | null;
  signal: AbortSignal | undefined;
  /** Set by every counter read to the generation read in its last pipeline (one-generation.ts). */
  witness?: GenerationWitness;
}

export interface Prepared {
  r: Reader;
  cubeQuery: CubeQuery;
  bound: RowBound;
}

/**
 * Slices over the cap without groups: refused from the range alone, before any Redis command
 * (with groups, `over` needs the groups, so any bound of them does here). The refusal, or null.
 */
export function overCapFromRange(query: ParsedQuery, maxRows: number): ReturnType<typeof rowCapError> | null {
  if (query.startHour === undefined) return null;
  const early = boundRows({ query, startHour: query.startHour, groupsUpper: Infinity, maxRows });
  return early.kind === 'over' ? rowCapError(early.rowCount, maxRows) : null;
}

/** Meta and dictionaries loaded, the rows bounded (libs/core boundRows). */
export async function prepare(
  deps: ReadDeps,
  space: KeySpace,
  query: ParsedQuery,
  now: number,
  signal: AbortSignal | undefined,
  prefetched?: Prefetched,
  /** performance.now() when the request arrived: dictionaries loaded since are not read again. */
  arrived?: number,
): Promise<Prepared> {
  const { redis, config } = deps;
  const early = overCapFromRange(query, config.maxRows);
  if (early) throw tooManyRows(early);
  const dicts = deps.dictionaries.get(space, query.apiId);
  signal?.throwIfAborted();
  const [meta] = await Promise.all([
    prefetched?.space.generation === space.generation
      ? prefetched.meta
      : readApiMeta(redis, space, query.apiId, { firstHour: true, billingZone: query.billingZone }),
    dicts.load(dictionariesOf(query), arrived === undefined ? {} : { since: arrived }),
  ]);
  const startHour =
    query.startHour ??
    (meta.firstHour === null ? query.endHour + 1 : hoursOfMonth(monthOfHour(meta.firstHour))[0]); // no data: an empty range
  const r: Reader = {
    deps,
    space,
    query,
    dicts,
    startHour,
    firstDataHour: meta.firstHour ?? Infinity,
    now,
    compactedThrough: meta.compactedThrough,
    billingSince: meta.billingSince ?? null,
    signal,
  };
  const cubeQuery = cubeQueryOf(query, dicts);
  const bound = boundRows({
    query,
    startHour,
    groupsUpper: groupsUpperBound(query.groupBy, groupSources(cubeQuery, dicts, query)),
    maxRows: config.maxRows,
  });
  return { r, cubeQuery, bound };
}

/**
 * The plan of the range with `granularity`, or the coarse plan without one (every read in one null slice):
 * of a groupBy=minute query, its minute buckets either way (libs/core planMinuteReads).
 */
export function fullPlan(r: Reader, granularity: ParsedQuery['groupBy']['granularity']): ReadPlan {
  const minutes = r.query.minutes;
  if (minutes) {
    const dataThroughMinute = minuteOf(r.now + FUTURE_MS);
    return planMinuteReads({ ...minutes, ...(granularity && { granularity: 'minute' }), dataThroughMinute });
  }
  if (granularity === 'minute') throw new Error('groupBy=minute without its minutes (parseQuery sets them)');
  const { retention } = r.deps.config;
  // Local days and months split a UTC hour at their edge by minute buckets (libs/core edge-minutes.ts):
  // only they depend on the minute, so only their plans name it (other plans stay memoized for the hour).
  const zoned = (granularity === 'day' || granularity === 'month') && r.query.timeZone !== undefined;
  return memoPlan({
    startHour: r.startHour,
    endHour: r.query.endHour,
    ...(granularity && { granularity }),
    compactedThrough: r.compactedThrough,
    horizons: horizonsAt(r.now, retention),
    dataThroughHour: hourOf(r.now + FUTURE_MS),
    ...(r.query.timeZone !== undefined && { timeZone: r.query.timeZone }),
    ...(zoned && (retention.minuteMs ?? 0) > 0 && { firstMinuteKept: firstWholeHourKept(r.now, retention) }),
    ...(zoned && billingZoneOf(r)),
  });
}

/**
 * The plan's billing zone (libs/core planner-billing.ts), when the query's zone is one of the API's and its edges are
 * counted. Its month edges' horizon changes once a day at most, and `since` once: the plans stay memoized.
 */
function billingZoneOf(r: Reader): { billingZone: BillingZonePlan } | undefined {
  const n = r.query.billingZone;
  if (n === undefined || r.billingSince === null) return undefined;
  return {
    billingZone: {
      n: n as BillingZonePlan['n'],
      since: r.billingSince,
      firstMonthEdgeDay: firstMonthEdgeDay(r.now, r.deps.config.retention),
    },
  };
}

export const tooManyRows = (error: ReturnType<typeof rowCapError>) => new RowCapError([error]);

/**
 * The first minute of the first UTC hour whose minutes are all still kept. The planner splits an hour
 * only when all its minutes are kept (libs/core edge-minutes.ts splitsEdge), so this plans exactly as
 * firstMinuteKept does, and changes once an hour: a zone's plan stays memoized for the hour, as others.
 */
const firstWholeHourKept = (now: number, retention: Retention): number =>
  Math.ceil(firstMinuteKept(now, retention) / 60) * 60;

/**
 * The row count of an answer bounded before any counter is read (docs/api.md#rows,
 * #order-and-limit): slices come from the range, groups from what the dictionaries can hold. Pure.
 *
 * The bound only ever refuses when the refusal is certain, so that the exact rule of
 * buildRows (groups with data x slices, over the cap without a limit) is unchanged:
 *   - a limit (at most the cap) always brings an answer under the cap;
 *   - without group dimensions the rows are the slices of the range, known exactly when the
 *     query has a start;
 *   - with groups, the rows are (groups with data) x slices; when even every dictionary entry
 *     having data would stay under the cap, nothing needs counting; otherwise the caller counts
 *     the groups (`countGroups`), which needs only enough data to see whether more than
 *     `groupsAllowed` groups exist.
 */
import type { Granularity } from '@va/contracts';
import { isUtc, sliceIndexOfHour } from '../calendar';
import { dayOfHour, monthOfHour } from '../time';
import type { ParsedQuery } from '../types';

/**
 * Slices of the hours [startHour, endHour] in a granularity (0 when the range is empty); days and
 * months of `zone` (absent: UTC).
 */
export function sliceCount(
  startHour: number,
  endHour: number,
  granularity: Granularity,
  zone?: string,
): number {
  if (startHour > endHour) return 0;
  if (!isUtc(zone) && granularity !== 'minute')
    return sliceIndexOfHour(endHour, granularity, zone) - sliceIndexOfHour(startHour, granularity, zone) + 1;
  switch (granularity) {
    case 'minute':
      return (endHour - startHour + 1) * 60;
    case 'hour':
      return endHour - startHour + 1;
    case 'day':
      return dayOfHour(endHour) - dayOfHour(startHour) + 1;
    case 'month':
      return monthOfHour(endHour) - monthOfHour(startHour) + 1;
  }
}

/**
 * Slices of a query's range (it has a time granularity): its minutes with groupBy=minute, else sliceCount
 * of its hours from `startHour` (the start, or the first hour holding data).
 */
export function querySliceCount(query: ParsedQuery, startHour: number): number {
  const g = query.groupBy.granularity;
  if (query.minutes) return Math.max(0, query.minutes.end - query.minutes.start + 1);
  return g ? sliceCount(startHour, query.endHour, g, query.timeZone) : 1;
}

/** Entries of the dictionaries the groups are made of (after filters, where known). */
export interface GroupSources {
  keys: number;
  identities: number;
  tagSets: number;
  /** Distinct tags over every tag set. */
  tags: number;
  /** Distinct regions over every tag set (absent: 0). */
  regions?: number;
}

/** At most this many groups can have data: the product of the grouped dimensions' entries. */
export function groupsUpperBound(groupBy: ParsedQuery['groupBy'], sources: GroupSources): number {
  let bound = 1;
  if (groupBy.key) bound *= sources.keys;
  if (groupBy.identity) bound *= sources.identities;
  // A tag-set code is one (tag set, region): it bounds the groups of tags and region together.
  if (groupBy.tags) bound *= sources.tagSets;
  else if (groupBy.region) bound *= sources.regions ?? 0;
  if (groupBy.tag) bound *= sources.tags;
  return bound;
}

export type RowBound =
  /** The answer cannot exceed the cap. */
  | { kind: 'fits' }
  /** It certainly does: refuse with this row count. */
  | { kind: 'over'; rowCount: number }
  /** It does when more than `groupsAllowed` groups have data in the range (`slices` each). */
  | { kind: 'countGroups'; groupsAllowed: number; slices: number }
  /** Only the rows themselves tell (no start: the range begins at the first matching data). */
  | { kind: 'unknown' };

export interface RowBoundInput {
  query: ParsedQuery;
  /**
   * First hour of the range: the start, or when absent the first hour holding any data of the
   * API (the matching data may begin later: then the slices are an upper bound only).
   */
  startHour: number;
  groupsUpper: number;
  maxRows: number;
}

export function boundRows(input: RowBoundInput): RowBound {
  const { query, maxRows } = input;
  if (query.limit !== undefined && query.limit <= maxRows) return { kind: 'fits' };
  const g = query.groupBy;
  const grouped = g.key || g.identity || g.tag || g.tags || g.region === true;
  const slices = querySliceCount(query, input.startHour);
  const exact = query.startHour !== undefined;
  if (!grouped) {
    if (slices <= maxRows) return { kind: 'fits' };
    return exact ? { kind: 'over', rowCount: slices } : { kind: 'unknown' };
  }
  if (input.groupsUpper * slices <= maxRows) return { kind: 'fits' };
  if (!exact || slices === 0) return { kind: 'unknown' };
  return { kind: 'countGroups', groupsAllowed: Math.floor(maxRows / slices), slices };
}

/**
 * Every matching event counts in some group: groupBy key and / or tags (time aside), no
 * identity, tag or region grouping (events without identity, tags or region are left out of
 * those) and no filter. Then any event in the range makes a group, and the total of the range tells whether
 * some group has data.
 */
export function everyEventHasAGroup(query: ParsedQuery): boolean {
  const { identity, tag, region } = query.groupBy;
  return (
    !identity &&
    !tag &&
    region !== true &&
    query.keyIds === undefined &&
    query.externalId === undefined &&
    query.tags === undefined &&
    query.regions === undefined
  );
}

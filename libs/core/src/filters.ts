/**
 * The filters of a query (docs/api.md#filters), one definition for every reader of
 * stored counters (on decoded dictionary entries) and for the oracle (on raw events).
 * apiId is not checked here: readers only read that API's keys, and the oracle selects
 * events by apiId before anything else.
 */
import type { Identity, ParsedQuery } from './types';

export interface FilterDims {
  /** Absent when the source carries no key (a cube without the key dimension). */
  keyId?: string;
  /** Absent: no identity. */
  identity?: Identity;
  /** The tag set; repeats and order do not matter. Absent = no tags. */
  tags?: readonly string[];
  /** Absent: no region (or a source without the tag-set dimension). */
  region?: string;
}

export function matchesFilters(
  query: Pick<ParsedQuery, 'externalId' | 'keyIds' | 'tags' | 'regions'>,
  dims: FilterDims,
): boolean {
  // An externalId no event carries matches nothing: that is not an error (docs/api.md#filters).
  if (query.externalId !== undefined && dims.identity?.externalId !== query.externalId) return false;
  if (query.keyIds !== undefined && query.keyIds.length > 0) {
    if (dims.keyId === undefined || !query.keyIds.includes(dims.keyId)) return false;
  }
  if (query.tags !== undefined && query.tags.length > 0) {
    // All of the wanted tags must be in the set (a subset test, not any-of).
    const have = dims.tags ?? [];
    for (const wanted of query.tags) if (!have.includes(wanted)) return false;
  }
  if (query.regions !== undefined && query.regions.length > 0) {
    // Any of the regions; an event without a region matches none.
    if (dims.region === undefined || !query.regions.includes(dims.region)) return false;
  }
  return true;
}

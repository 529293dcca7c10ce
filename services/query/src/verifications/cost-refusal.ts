/**
 * A query whose reads would cost more than QUERY_MAX_COST is refused before they are made
 * (docs/query-isolation.md "Cost refused up front"): 422 query_too_expensive, with a detail that
 * names what to narrow. The estimate is @va/store's (read-cost.ts): a bound from the dictionaries
 * first (no Redis command; light queries end there), then the sections' row counts (the section
 * cache's, else one pipeline of header reads).
 */
import type { BucketRead, ParsedQuery } from '@va/core';
import {
  sectionRowsBound,
  sectionRowsOf,
  sumCostUs,
  type CubeQuery,
  type DictName,
  type DictionarySizes,
  type KeySpace,
  type ReadDictionaries,
} from '@va/store';
import { ApiError } from '../http/api-error';
import { dictionariesOf } from './cube-query';
import type { ReadDeps } from './deps';

export interface CostCheck {
  deps: ReadDeps;
  space: KeySpace;
  query: ParsedQuery;
  cubeQuery: CubeQuery;
  dicts: ReadDictionaries;
  /** The bucket reads the answer certainly makes. */
  reads: readonly BucketRead[];
  signal: AbortSignal | undefined;
}

/** Throws the refusal (ApiError query_too_expensive) when the reads' estimated work is over the bound. */
export async function refuseCostly(check: CostCheck): Promise<void> {
  const { deps, query, cubeQuery, reads } = check;
  const maxMs = deps.config.queryMaxCost;
  if (maxMs <= 0 || reads.length === 0) return;
  const sizes = loadedSizes(query, check.dicts);
  const sliced = new Set(reads.map((read) => read.slice)).size > 1;
  const bound = reads.length * sectionRowsBound(cubeQuery, sizes);
  if (sumCostUs(cubeQuery, sizes, bound, sliced) / 1000 <= maxMs) return;
  check.signal?.throwIfAborted();
  const rows = await sectionRowsOf(deps.redis, check.space, query.apiId, cubeQuery, reads, deps.sections);
  const ms = sumCostUs(cubeQuery, sizes, rows, sliced) / 1000;
  if (ms > maxMs) throw new ApiError('query_too_expensive', tooExpensiveDetail(query, rows, ms, maxMs));
}

function loadedSizes(query: ParsedQuery, dicts: ReadDictionaries): DictionarySizes {
  const sizes: Partial<Record<DictName, number>> = {};
  for (const d of dictionariesOf(query)) sizes[d] = dicts.size(d);
  return sizes;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** What to narrow, from what the query asks: always the range and a filter, then what it groups by. */
export function tooExpensiveDetail(query: ParsedQuery, rows: number, ms: number, maxMs: number): string {
  const g = query.groupBy;
  const dimensions = [
    g.key && 'key',
    g.identity && 'identity',
    g.tag && 'tag',
    g.tags && 'tags',
    g.region && 'region',
  ].filter((d): d is string => typeof d === 'string');
  const narrow = ['a shorter range (start, end)', 'a filter (keyId, externalId, tag, region)'];
  if (dimensions.length >= 2)
    narrow.push(`fewer groupBy dimensions (it groups by ${dimensions.join(' and ')})`);
  if (g.granularity === 'hour') narrow.push('a coarser granularity (groupBy=day or month instead of hour)');
  else if (g.granularity === 'day') narrow.push('a coarser granularity (groupBy=month instead of day)');
  return (
    `The query would sum about ${rows.toLocaleString('en-US')} counter rows, about ${seconds(ms)} of work, ` +
    `more than the ${seconds(maxMs)} a query may take; it was refused before reading them. ` +
    `Narrow it: ${narrow.join(', ')}.`
  );
}

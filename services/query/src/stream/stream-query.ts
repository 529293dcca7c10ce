/**
 * What a stream asks, as the service shares it (pure): streams whose scoped queries are equal share one
 * read and one answer (docs/api.md#stream).
 *
 * The key is the whole query after the caller's scope was applied (auth scopedQuery: a read token's
 * query carries its externalId), written with its object keys sorted, every field included: a field
 * added to ParsedQuery later keys streams apart by itself, never merges two queries with different
 * answers. (Lists keep their order: the same filter listed in another order reads once more, which is
 * only a missed share.) Nothing else of the caller changes the answer: the API belongs to one
 * workspace, checked (404) before a stream joins, and a root key's permissions only decide whether it
 * may read at all.
 *
 * A query without `end` follows the clock: each read is of the range up to the hour of that moment (with
 * groupBy=minute, up to its minute).
 */
import { hourOf, minuteOf, type ParsedQuery } from '@va/core';

export interface StreamQuery {
  /** Equal for queries with the same answer. */
  key: string;
  apiId: string;
  query: ParsedQuery;
  /** No `end` was given: the range ends at the hour of each read. */
  openEnd: boolean;
}

/** Whether the raw query string gives no `end` (absent, empty or `null`: docs/api.md#parameters). */
export function hasOpenEnd(params: URLSearchParams): boolean {
  const end = params.get('end');
  return end === null || end === '' || end === 'null';
}

/** JSON with object keys sorted (undefined properties left out, as JSON.stringify does). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function streamQuery(query: ParsedQuery, openEnd: boolean): StreamQuery {
  const { minutes } = query;
  const key = canonical({
    ...query,
    endHour: openEnd ? null : query.endHour,
    ...(minutes && { minutes: { start: minutes.start, end: openEnd ? null : minutes.end } }),
  });
  return { key, apiId: query.apiId, query, openEnd };
}

/** The query to read at `now`. */
export function queryAt(stream: StreamQuery, now: number): ParsedQuery {
  if (!stream.openEnd) return stream.query;
  const { minutes } = stream.query;
  return {
    ...stream.query,
    endHour: hourOf(now),
    ...(minutes && { minutes: { start: minutes.start, end: minuteOf(now) } }),
  };
}

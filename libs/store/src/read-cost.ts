/**
 * What reading and summing a query's counters will cost, known before it is done (docs/query-isolation.md
 * "Cost refused up front"): the rows of the sealed sections the reads would sum, and what summing them costs in
 * read-sections.ts, from what is cheap to know:
 *   - an upper bound of the rows from the dictionaries' sizes alone (no Redis command): most queries are
 *     settled by it;
 *   - else each read's section row count: from the section cache where it holds the section, else from
 *     the section's header (`GETRANGE key 16 19`, one pipeline for every read).
 * Summing is the cost that grows with the data: a row summed into a group of two or more dimensions
 * goes through a map (and makes, at worst, a group of its own: decoded, counted, ordered), a row
 * of one dimension into a typed array, and a row a filter drops is one bitmap test (none when a
 * binary search over the first column skips it). The rates are measured (docs/query-isolation.md).
 * Not counted: delta hashes of buckets not sealed yet (the last hours), and decoding a section the
 * reader has not cached (read-pool workers keep sections the main thread cannot see).
 */
import type { BucketRead } from '@va/core';
import type { RedisClient } from './connection';
import { apiKeys, type DictName, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { sectionCubeOf, type CubeQuery } from './read';
import { ROLES } from './read-sections';
import { SEARCH_MAX_CODES } from './slice-sums';
import type { SectionStore } from './section-cache';
import { SECTION_ROWS_OFFSET } from './section/codec';

/**
 * Microseconds of one core per section row, measured on the 10M-event medium tenant (answer times of
 * queries reading 40,000 to 1,260,000 rows, sections cached; docs/query-isolation.md).
 */
export const ROW_COST_US = {
  /** A row tested against a filter's bitmap and dropped. */
  scanned: 0.04,
  /** A row added into the groups of one dimension (or none): a typed array by code. */
  dense: 0.05,
  /**
   * A row added into groups of two or more dimensions, all in one slice: a map by group number, then
   * each group decoded, counted and ordered (rows of several buckets often fall in one group).
   */
  composite: 5,
  /** The same by time slices: nearly every row is a group of its own slice (a cell, then a row). */
  compositeSliced: 15,
} as const;

/** Sizes of the API's dictionaries the query loaded (one it did not load bounds nothing). */
export type DictionarySizes = Readonly<Partial<Record<DictName, number>>>;

const codesOf = (q: CubeQuery, role: DictName): readonly number[] | null =>
  role === 'k' ? q.keys : role === 'i' ? q.identities : q.sets;

/** Share of a section's rows a filter on `role` keeps, taking codes as equally frequent. */
function kept(q: CubeQuery, role: DictName, sizes: DictionarySizes): number {
  const codes = codesOf(q, role);
  if (codes === null) return 1;
  const size = sizes[role];
  return size === undefined ? 1 : Math.min(1, new Set(codes).size / Math.max(1, size));
}

/**
 * Estimated microseconds to sum `rows` section rows of the query's cube (its filters and groups);
 * `sliced`: the reads fall in more than one time slice.
 */
export function sumCostUs(q: CubeQuery, sizes: DictionarySizes, rows: number, sliced: boolean): number {
  const roles = ROLES[sectionCubeOf(q)];
  let keep = 1;
  for (const role of roles) keep *= kept(q, role, sizes);
  // A filter on the first column naming few codes finds their rows by binary search: the others are never visited.
  const first = roles[0];
  const firstCodes = first === undefined ? null : codesOf(q, first);
  const searched = firstCodes !== null && firstCodes.length <= SEARCH_MAX_CODES;
  const visited = searched ? kept(q, first!, sizes) : 1;
  const grouped = roles.filter((role) =>
    role === 'k' ? q.group.key : role === 'i' ? q.group.identity : q.group.set,
  );
  const perKept =
    grouped.length < 2 ? ROW_COST_US.dense : sliced ? ROW_COST_US.compositeSliced : ROW_COST_US.composite;
  return rows * (visited * ROW_COST_US.scanned + keep * perKept);
}

/** The most rows one section of the query's cube can hold: every combination of its dimensions' codes. */
export function sectionRowsBound(q: CubeQuery, sizes: DictionarySizes): number {
  let rows = 1;
  for (const role of ROLES[sectionCubeOf(q)]) {
    const size = sizes[role];
    if (size === undefined) return Infinity;
    // +1: x and f hold events without an identity under a code of their own.
    rows *= size + (role === 'i' ? 1 : 0);
  }
  return rows;
}

/**
 * The rows of the sealed sections `reads` would sum: the cached copy's where `sections` holds it,
 * else the header's, in one pipeline. A bucket without a section (not sealed yet) counts 0. An
 * x read whose section is absent reads f instead (read.ts), so both headers are asked.
 */
export async function sectionRowsOf(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  q: CubeQuery,
  reads: readonly BucketRead[],
  sections?: SectionStore,
): Promise<number> {
  const keys = apiKeys(space, apiId);
  const cube = sectionCubeOf(q);
  let rows = 0;
  const asked: string[][] = [];
  for (const { res, index } of reads) {
    if (res === 'n') continue; // a minute bucket has no section: its hash is like an unsealed hour's
    const key = keys.section(res, index, cube);
    const held = sections?.get(key);
    if (held) rows += held.section.rows;
    else asked.push(cube === 'x' ? [key, keys.section(res, index, 'f')] : [key]);
  }
  if (asked.length === 0) return rows;
  const pipeline = newPipeline(redis);
  const end = SECTION_ROWS_OFFSET + 3;
  for (const names of asked)
    for (const name of names) pipeline.getrangeBuffer(name, SECTION_ROWS_OFFSET, end);
  const replies = (await execPipeline(pipeline)) as Buffer[];
  let n = 0;
  for (const names of asked) {
    const found = names.map(() => replies[n++]!).find((header) => header.length === 4);
    if (found) rows += found.readUInt32LE(0);
  }
  return rows;
}

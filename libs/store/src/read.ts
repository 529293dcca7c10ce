/**
 * Reading counters for a query (docs/design.md "Read path"): the API's meta (compaction
 * point, first buckets holding data) and the cube hashes of a list of bucket reads, in as
 * few round trips as the layout allows:
 *   1. meta (one pipeline; the caller loads dictionaries beside it);
 *   2. the `parts` sets of the buckets, only for reads that cannot name their hashes up front;
 *   3. every hash (HMGET when a filter names a few codes of a sharded cube, HGETALL otherwise).
 * Step 3 runs in MULTI together with the compaction point whenever the plan reads an hour
 * bucket and the day or month rollup around it: a compaction in between would otherwise
 * count that hour twice. When the compaction point moved, the caller plans again.
 */
import type { ChainableCommander, Redis } from 'ioredis';
import { OUTCOME_COUNT } from '@va/contracts';
import {
  dayOfHour,
  hoursOfDay,
  hoursOfMonth,
  monthOfDay,
  monthOfHour,
  type BucketRead,
  type Cell,
} from '@va/core';
import { apiKeys, code36, cubeSuffix, shardOf, type Cube, type KeySpace } from './keys';
import { execPipeline } from './pipeline';
import type { ReadDictionaries } from './read-dictionaries';
import {
  addFieldValues,
  addHash,
  CodeCounts,
  groupCodes,
  type CodeSelection,
  type Sign,
} from './read-fields';

export interface ApiMeta {
  /** Last hour compacted into the rollups; null = none yet. */
  compactedThrough: number | null;
  /** First hour of the earliest bucket that holds data at any resolution; null = no data. */
  firstHour: number | null;
}

const parseIndex = (raw: unknown): number | null => {
  if (raw === null || raw === undefined) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
};

/** The compaction point and (when `firstHour`) the first bucket of each resolution. */
export async function readApiMeta(
  redis: Redis,
  space: KeySpace,
  apiId: string,
  options: { firstHour: boolean },
): Promise<ApiMeta> {
  const keys = apiKeys(space, apiId);
  const pipeline = redis.pipeline().get(keys.compactedThrough);
  if (options.firstHour) {
    for (const r of ['h', 'd', 'm'] as const) pipeline.zrange(keys.bucketIndex(r), 0, 0, 'WITHSCORES');
  }
  const [cmp, ...firsts] = await execPipeline(pipeline);
  let firstHour: number | null = null;
  firsts.forEach((reply, n) => {
    const index = parseIndex(Array.isArray(reply) ? reply[1] : undefined);
    if (index === null) return;
    const hour = n === 0 ? index : n === 1 ? hoursOfDay(index)[0] : hoursOfMonth(index)[0];
    if (firstHour === null || hour < firstHour) firstHour = hour;
  });
  return { compactedThrough: parseIndex(cmp), firstHour };
}

export interface CubeQuery {
  cube: Cube;
  /** Dictionary codes each filter allows; null = no filter. An empty list matches nothing. */
  keys: readonly number[] | null;
  identities: readonly number[] | null;
  sets: readonly number[] | null;
  /** Dimensions the query groups by (`set` for groupBy tag or tags). */
  group: { key: boolean; identity: boolean; set: boolean };
}

const signOf = (read: BucketRead): Sign => (read.subtract ? -1 : 1);

/** A filter naming at most this many codes of a sharded cube is read with HMGET. */
const HMGET_MAX_CODES = 64;

interface Fetch {
  slice: number | null;
  key: string;
  /** Part of the hash (f: identity code or "_"). */
  part: string;
  /** HMGET these fields; absent = HGETALL. */
  fields?: string[];
  /** -1 for the planner's `subtract` reads. */
  sign: Sign;
}

const toSet = (codes: readonly number[] | null): Set<string> | null =>
  codes ? new Set(codes.map(code36)) : null;

function selectionOf(q: CubeQuery): CodeSelection {
  return {
    cube: q.cube,
    keys: toSet(q.keys),
    identities: toSet(q.identities),
    sets: toSet(q.sets),
    group: q.group,
  };
}

/** The codes filtering the single dimension of a k, i or s cube. */
function filterCodes(q: CubeQuery): readonly number[] | null {
  return q.cube === 'k' ? q.keys : q.cube === 'i' ? q.identities : q.cube === 's' ? q.sets : null;
}

/** HMGET fields per shard for a few codes: every outcome of each code. */
function fieldsByShard(codes: readonly number[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const code of codes) {
    const shard = shardOf(code);
    let fields = out.get(shard);
    if (!fields) {
      fields = [];
      out.set(shard, fields);
    }
    const c = code36(code);
    for (let o = 0; o < OUTCOME_COUNT; o++) fields.push(`${c}:${o}`);
  }
  return out;
}

/** The fetches of a read that need no `parts` set; undefined when they do. */
function directFetches(
  q: CubeQuery,
  read: BucketRead,
  keys: ReturnType<typeof apiKeys>,
): Fetch[] | undefined {
  const { res, index, slice } = read;
  const sign = signOf(read);
  if (q.cube === 't') return [{ slice, key: keys.cube(res, index, 't'), part: '', sign }];
  if (q.cube === 'f') {
    if (q.identities === null) return undefined;
    return q.identities.map((code) => {
      const part = code36(code);
      return { slice, key: keys.cube(res, index, cubeSuffix('f', part)), part, sign };
    });
  }
  const codes = filterCodes(q);
  if (codes === null || codes.length > HMGET_MAX_CODES) return undefined;
  return [...fieldsByShard(codes)].map(([shard, fields]) => ({
    slice,
    key: keys.cube(res, index, cubeSuffix(q.cube, shard)),
    part: shard,
    fields,
    sign,
  }));
}

/** The fetches of a read from its bucket's `parts` set. */
function fetchesFromParts(
  q: CubeQuery,
  read: BucketRead,
  parts: readonly string[],
  keys: ReturnType<typeof apiKeys>,
): Fetch[] {
  const prefix = `${q.cube}:`;
  const codes = filterCodes(q);
  const shards = codes ? new Set(codes.map(shardOf)) : null;
  const out: Fetch[] = [];
  for (const suffix of parts) {
    if (!suffix.startsWith(prefix)) continue;
    const part = suffix.slice(prefix.length);
    if (shards && !shards.has(part)) continue;
    out.push({ slice: read.slice, key: keys.cube(read.res, read.index, suffix), part, sign: signOf(read) });
  }
  return out;
}

/**
 * Whether the reads include an hour bucket together with the day or month rollup around
 * it (or a day with its month): only then can a compaction between plan and read double
 * an hour, and only then must the read be one transaction with the compaction point.
 */
export function readsOverlap(reads: readonly BucketRead[]): boolean {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    if (r.res === 'd') days.add(r.index);
    else if (r.res === 'm') months.add(r.index);
  }
  if (days.size === 0 && months.size === 0) return false;
  for (const r of reads) {
    if (r.res === 'h' && (days.has(dayOfHour(r.index)) || months.has(monthOfHour(r.index)))) return true;
    if (r.res === 'd' && months.has(monthOfDay(r.index))) return true;
  }
  return false;
}

export type CountsRead =
  | { ok: true; counts: CodeCounts }
  /** The compaction point moved since the plan: plan again with this one. */
  | { ok: false; compactedThrough: number | null };

/**
 * Reads and sums the cube hashes of `reads` (planned with `compactedThrough`).
 * Filters with an empty code list match nothing and read nothing.
 */
export async function readCounts(
  redis: Redis,
  space: KeySpace,
  apiId: string,
  q: CubeQuery,
  reads: readonly BucketRead[],
  compactedThrough: number | null,
): Promise<CountsRead> {
  const counts = new CodeCounts();
  if ([q.keys, q.identities, q.sets].some((codes) => codes !== null && codes.length === 0)) {
    return { ok: true, counts };
  }
  const keys = apiKeys(space, apiId);

  const fetches: Fetch[] = [];
  const needParts: BucketRead[] = [];
  for (const read of reads) {
    const direct = directFetches(q, read, keys);
    if (direct) fetches.push(...direct);
    else needParts.push(read);
  }
  if (needParts.length > 0) {
    const pipeline = redis.pipeline();
    for (const read of needParts) pipeline.smembers(keys.parts(read.res, read.index));
    const replies = (await execPipeline(pipeline)) as string[][];
    needParts.forEach((read, n) => fetches.push(...fetchesFromParts(q, read, replies[n] ?? [], keys)));
  }
  if (fetches.length === 0) return { ok: true, counts };

  const snapshot = readsOverlap(reads);
  const batch: ChainableCommander = snapshot ? redis.multi().get(keys.compactedThrough) : redis.pipeline();
  for (const f of fetches) {
    if (f.fields) batch.hmget(f.key, ...f.fields);
    else batch.hgetall(f.key);
  }
  const replies = await execPipeline(batch);
  if (snapshot) {
    const now = parseIndex(replies.shift());
    if (now !== compactedThrough) return { ok: false, compactedThrough: now };
  }

  const sel = selectionOf(q);
  fetches.forEach((f, n) => {
    const into = counts.slice(f.slice);
    const reply = replies[n];
    if (f.fields) addFieldValues(into, sel, f.part, f.fields, reply as (string | null)[], f.sign);
    else addHash(into, sel, f.part, reply as Record<string, string>, f.sign);
  });
  return { ok: true, counts };
}

/**
 * The summed counts as cells with decoded dimensions. Codes newer than the loaded
 * dictionaries are loaded first; a code no dictionary holds is a broken store (throws).
 */
export async function decodeCells(counts: CodeCounts, dicts: ReadDictionaries): Promise<Cell[]> {
  const max = { k: -1, i: -1, s: -1 };
  for (const groups of counts.slices.values()) {
    for (const group of groups.keys()) {
      const [k, i, s] = groupCodes(group);
      if (k !== undefined && k > max.k) max.k = k;
      if (i !== undefined && i > max.i) max.i = i;
      if (s !== undefined && s > max.s) max.s = s;
    }
  }
  if (max.k >= 0) await dicts.ensure('k', max.k);
  if (max.i >= 0) await dicts.ensure('i', max.i);
  if (max.s >= 0) await dicts.ensure('s', max.s);

  const cells: Cell[] = [];
  for (const [slice, groups] of counts.slices) {
    for (const [group, values] of groups) {
      const [k, i, s] = groupCodes(group);
      const cell: Cell = { slice, counts: values };
      if (k !== undefined) cell.keyId = decoded(dicts.keyId(k), 'k', k);
      if (i !== undefined) cell.identity = decoded(dicts.identity(i), 'i', i);
      if (s !== undefined) cell.tags = decoded(dicts.tagSet(s), 's', s);
      cells.push(cell);
    }
  }
  return cells;
}

function decoded<T>(value: T | undefined, d: string, code: number): T {
  if (value === undefined)
    throw new Error(`counter uses code ${code} of dictionary ${d}, which it does not hold`);
  return value;
}

/**
 * Reading counters for a query (docs/design.md "Read path"): the API's meta (compaction
 * point, first buckets holding data) and the cube hashes of a list of bucket reads, in as
 * few round trips as the layout allows:
 *   1. meta (one pipeline; the caller loads dictionaries beside it);
 *   2. the `parts` sets of the buckets, only for reads that cannot name their hashes up front
 *      (cube f without an identity filter; k, i, s when the caller gives no `codeCount`);
 *   3. every hash, with few calls of the script readHashes (commands/readHashes.lua; one
 *      pipeline), each returning its hashes (HGETALL, or HMGET when a filter names a few codes
 *      of a sharded cube) as one string per hash together with the compaction point. Thousands
 *      of pipelined HGETALLs cost the client far more per command and per field (ioredis
 *      replies, objects, GC) than these few replies; the client sums them (FieldSums).
 * Calls hold at most READ_MAX_KEYS hashes, cut only between families (chunksOf): whenever the
 * plan reads an hour bucket and the day or month rollup around it, a compaction in between
 * would otherwise count that hour twice, so such buckets are read in one atomic call and each
 * call's compaction point is checked. When the compaction point moved, the caller plans again.
 */
import type { RedisClient } from './connection';
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
import { apiKeys, code36, cubeSuffix, SHARD_BITS, shardOf, type Cube, type KeySpace } from './keys';
import { execPipeline, newPipeline, queueCommand } from './pipeline';
import type { ReadDictionaries } from './read-dictionaries';
import { CodeCounts, FieldSums, groupCodes, type CodeSelection, type Sign } from './read-fields';

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
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  options: { firstHour: boolean },
): Promise<ApiMeta> {
  const keys = apiKeys(space, apiId);
  const pipeline = newPipeline(redis).get(keys.compactedThrough);
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
  /**
   * Length of the dictionary of a k, i or s cube's dimension, loaded for this query. When given
   * (and there are at most DENSE_PARTS_MAX parts), the cube's parts are taken to be
   * 0 .. (codeCount - 1) >> SHARD_BITS (codes are dense, and no counter uses a code its dictionary
   * did not hold when it was written) and no `parts` set is read: a part missing in a bucket
   * reads as an empty hash. Codes assigned after the dictionary was loaded may be missed, as
   * events written after the read are.
   */
  codeCount?: number;
}

const signOf = (read: BucketRead): Sign => (read.subtract ? -1 : 1);

/**
 * With `codeCount`, a read names the parts of a k, i or s cube itself when there are at most
 * this many; beyond, it reads the bucket's `parts` set, so that sparse buckets of a large
 * dictionary do not read thousands of absent hashes (each costs a readHashes call about 9 µs).
 */
export const DENSE_PARTS_MAX = 64;

/** A filter naming at most this many codes of a sharded cube is read with HMGET. */
const HMGET_MAX_CODES = 64;

interface Fetch {
  res: BucketRead['res'];
  index: number;
  cube: Cube;
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
  const at = { res, index, cube: q.cube, slice };
  if (q.cube === 't') return [{ ...at, key: keys.cube(res, index, 't'), part: '', sign }];
  if (q.cube === 'f') {
    if (q.identities === null) return undefined;
    return q.identities.map((code) => {
      const part = code36(code);
      return { ...at, key: keys.cube(res, index, cubeSuffix('f', part)), part, sign };
    });
  }
  const codes = filterCodes(q);
  if (codes === null || codes.length > HMGET_MAX_CODES) {
    if (q.codeCount === undefined) return undefined;
    const shards = codes
      ? new Set(codes.map(shardOf))
      : Array.from({ length: (q.codeCount + (1 << SHARD_BITS) - 1) >> SHARD_BITS }, (_, n) => code36(n));
    if ((Array.isArray(shards) ? shards.length : shards.size) > DENSE_PARTS_MAX) return undefined;
    return [...shards].map((part) => ({
      ...at,
      key: keys.cube(res, index, cubeSuffix(q.cube, part)),
      part,
      sign,
    }));
  }
  return [...fieldsByShard(codes)].map(([shard, fields]) => ({
    ...at,
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
    out.push({
      res: read.res,
      index: read.index,
      cube: q.cube,
      slice: read.slice,
      key: keys.cube(read.res, read.index, suffix),
      part,
      sign: signOf(read),
    });
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

export interface ReadOptions {
  /** Hashes per readHashes call (default READ_MAX_KEYS). */
  maxKeys?: number;
  /** readHashes calls per round trip (default READ_CALLS_PER_ROUND_TRIP). */
  callsPerRoundTrip?: number;
  /** Once aborted, no further Redis call is made: the read throws the signal's reason. */
  signal?: AbortSignal;
}

/**
 * readHashes calls sent per round trip. Sending a large read in rounds lets the commands of
 * other requests on the same connection in between (Redis answers one connection in order),
 * spreads the parsing over several turns of the event loop, and lets an aborted read stop.
 */
export const READ_CALLS_PER_ROUND_TRIP = 4;

export type CountsRead =
  | { ok: true; counts: CodeCounts }
  /** The compaction point moved since the plan: plan again with this one. */
  | { ok: false; compactedThrough: number | null };

/**
 * Reads and sums the cube hashes of `reads` (planned with `compactedThrough`).
 * Filters with an empty code list match nothing and read nothing.
 */
export async function readCounts(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  q: CubeQuery,
  reads: readonly BucketRead[],
  compactedThrough: number | null,
  options: ReadOptions = {},
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
    options.signal?.throwIfAborted();
    const pipeline = newPipeline(redis);
    for (const read of needParts) pipeline.smembers(keys.parts(read.res, read.index));
    const replies = (await execPipeline(pipeline)) as string[][];
    needParts.forEach((read, n) => fetches.push(...fetchesFromParts(q, read, replies[n] ?? [], keys)));
  }
  if (fetches.length === 0) return { ok: true, counts };

  const snapshot = readsOverlap(reads);
  const chunks = chunksOf(fetches, reads, options.maxKeys ?? READ_MAX_KEYS);
  // Sum by field first (per slice, and per part in cube f), so that each distinct field is
  // decoded into its group once however many buckets hold it.
  const sums = new Map<string, { slice: number | null; part: string; fields: FieldSums }>();
  const perRoundTrip = options.callsPerRoundTrip ?? READ_CALLS_PER_ROUND_TRIP;
  for (let from = 0; from < chunks.length; from += perRoundTrip) {
    options.signal?.throwIfAborted();
    const batch = chunks.slice(from, from + perRoundTrip);
    const pipeline = newPipeline(redis);
    for (const chunk of batch) queueCommand(redis, pipeline, 'readHashes', readHashesArgs(keys, chunk));
    const replies = (await execPipeline(pipeline)) as (string | null)[][];
    if (snapshot) {
      // Each call read cmp with its hashes atomically, and a call holds whole families (see
      // chunksOf): every family was read at the compaction point the plan was made with.
      for (const reply of replies) {
        const now = parseIndex(reply[0]);
        if (now !== compactedThrough) return { ok: false, compactedThrough: now };
      }
    }
    batch.forEach((chunk, c) => {
      const reply = replies[c]!;
      chunk.forEach((f, n) => {
        const id = `${f.slice}/${f.cube === 'f' ? f.part : ''}`;
        let entry = sums.get(id);
        if (!entry) {
          entry = { slice: f.slice, part: f.part, fields: new FieldSums(q.cube) };
          sums.set(id, entry);
        }
        entry.fields.addText(reply[n + 1] ?? '', f.sign);
      });
    });
  }
  options.signal?.throwIfAborted();
  const sel = selectionOf(q);
  for (const { slice, part, fields } of sums.values()) fields.addTo(counts.slice(slice), sel, part);
  return { ok: true, counts };
}

/**
 * Hashes per readHashes call. A call blocks Redis while it runs (measured: about 9 µs per
 * hash plus a fraction of a µs per field, 5-10 ms for 500 hashes of the i cube); this bounds
 * it, except for one family larger than this, which is never split.
 */
export const READ_MAX_KEYS = 500;

/**
 * The fetches in readHashes calls of at most `maxKeys` hashes, each call made of whole
 * families. A family is the coarsest bucket read around a bucket (its month when the month
 * rollup is read, else its day when the day rollup is read, else the bucket itself): only
 * buckets of one family can count the same hour twice (or subtract an hour their rollup lacks)
 * if a compaction or a late event lands between their reads, so each family is read in one
 * atomic call, with the compaction point.
 */
function chunksOf(fetches: readonly Fetch[], reads: readonly BucketRead[], maxKeys: number): Fetch[][] {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    if (r.res === 'd') days.add(r.index);
    else if (r.res === 'm') months.add(r.index);
  }
  const familyOf = (f: Fetch): string => {
    const month = f.res === 'm' ? f.index : f.res === 'd' ? monthOfDay(f.index) : monthOfHour(f.index);
    if (months.has(month)) return `m${month}`;
    if (f.res === 'm') return `m${f.index}`;
    const day = f.res === 'd' ? f.index : dayOfHour(f.index);
    if (days.has(day)) return `d${day}`;
    return `${f.res}${f.index}`;
  };
  const families = new Map<string, Fetch[]>();
  for (const f of fetches) {
    const family = familyOf(f);
    const members = families.get(family);
    if (members) members.push(f);
    else families.set(family, [f]);
  }
  const chunks: Fetch[][] = [];
  let chunk: Fetch[] = [];
  for (const members of families.values()) {
    if (chunk.length > 0 && chunk.length + members.length > maxKeys) {
      chunks.push(chunk);
      chunk = [];
    }
    for (const f of members) chunk.push(f);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** numkeys, KEYS and ARGV of one readHashes call (commands/readHashes.lua). */
function readHashesArgs(keys: ReturnType<typeof apiKeys>, chunk: readonly Fetch[]): string[] {
  const args: string[] = [String(chunk.length + 1), keys.compactedThrough];
  for (const f of chunk) args.push(f.key);
  for (const f of chunk) {
    args.push(String(f.fields?.length ?? 0));
    if (f.fields) for (const field of f.fields) args.push(field);
  }
  return args;
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

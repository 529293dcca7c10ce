/**
 * Reading counters for a query (docs/design.md "Read path", docs/store-v2.md "Reading"): the API's
 * meta (compaction point, first buckets holding data) and the counters of a list of bucket reads,
 * in as few round trips as the layout allows:
 *   1. meta (one pipeline; the caller loads dictionaries beside it);
 *   2. every bucket, with few calls of the script readBuckets (commands/readBuckets.lua; one
 *      pipeline per round), each returning, with the compaction point, per bucket: its sealed
 *      section of the query's cube (only when the caller's cached copy is not current), and its
 *      sealing (`z:`) and delta hashes as one string per hash: named when the filters name them,
 *      else found in the bucket's parts and zparts sets inside the script; and the section parts
 *      of its parts lists (delta and sealing). A bucket's value is section + sealing + delta, and
 *      a seal moves counts between them atomically, so one call sees each count once.
 * Sections are summed over their typed arrays by code (read-sections.ts); hash fields are summed
 * per field in the client (FieldSums), as thousands of pipelined HGETALLs would cost far more.
 * Calls hold at most READ_MAX_KEYS of work, cut only between families (chunksOf): whenever the
 * plan reads an hour bucket and the day or month rollup around it, a compaction in between
 * would otherwise count that hour twice, so such buckets are read in one atomic call; then, and
 * whenever the plan reads a rollup the compactor still writes to, each call's compaction point is
 * checked (readsDependOnCompaction). When the compaction point moved, the caller plans again.
 */
import type { ChainableCommander } from 'ioredis';
import { isCluster, type RedisClient } from './connection';
import { OUTCOME_COUNT } from '@va/contracts';
import {
  dayOfHour,
  hoursOfDay,
  hoursOfMonth,
  lastHourOf,
  monthOfDay,
  monthOfHour,
  type BucketRead,
  type Cell,
  type TopGroups,
} from '@va/core';
import {
  apiKeys,
  code36,
  cubeSuffix,
  partsListSuffix,
  SHARD_BITS,
  shardOf,
  type Cube,
  type KeySpace,
} from './keys';
import { execPipeline, newPipeline, queueCommand } from './pipeline';
import type { ReadDictionaries } from './read-dictionaries';
import { CodeCounts, FieldSums, groupCodes, type CodeSelection, type Sign } from './read-fields';
import { monthDayGroups, recordedSections, type MonthDays } from './month-days';
import { compactCounts, SectionSums, type SectionView } from './read-sections';
import type { CachedSection, SectionStore } from './section-cache';
import { decodeSection, mergeSections, SECTION_VERSION_OFFSET, type SectionCube } from './section/codec';

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
  const pipeline = newPipeline(redis);
  const parse = queueApiMeta(pipeline, space, apiId, options);
  return parse(await execPipeline(pipeline));
}

/**
 * Queues readApiMeta's commands on a pipeline that may carry others (the query service sends them
 * with its limits, one round trip); the returned function reads their replies out of the pipeline's,
 * at the positions they were queued at.
 */
export function queueApiMeta(
  pipeline: ChainableCommander,
  space: KeySpace,
  apiId: string,
  options: { firstHour: boolean },
): (replies: readonly unknown[]) => ApiMeta {
  const keys = apiKeys(space, apiId);
  const at = pipeline.length;
  pipeline.get(keys.compactedThrough);
  if (options.firstHour) {
    for (const r of ['h', 'd', 'm'] as const) pipeline.zrange(keys.bucketIndex(r), 0, 0, 'WITHSCORES');
  }
  const count = pipeline.length - at;
  return (replies) => {
    const [cmp, ...firsts] = replies.slice(at, at + count);
    let firstHour: number | null = null;
    firsts.forEach((reply, n) => {
      const index = parseIndex(Array.isArray(reply) ? reply[1] : undefined);
      if (index === null) return;
      const hour = n === 0 ? index : n === 1 ? hoursOfDay(index)[0] : hoursOfMonth(index)[0];
      if (firstHour === null || hour < firstHour) firstHour = hour;
    });
    return { compactedThrough: parseIndex(cmp), firstHour };
  };
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
   * (and there are at most DENSE_PARTS_MAX parts), the parts 0 .. (codeCount - 1) >> SHARD_BITS
   * are named (codes are dense, and no counter uses a code its dictionary did not hold when it was
   * written), so that a bucket whose parts set also lists thousands of f parts is not walked.
   * Codes assigned after the dictionary was loaded may be missed, as events written after the
   * read are.
   */
  codeCount?: number;
}

const signOf = (read: BucketRead): Sign => (read.subtract ? -1 : 1);

/**
 * A filter naming at most this many codes of a sharded cube (or identities of f) names its hashes,
 * when they lie in at most NAMED_MAX_HASHES hashes per bucket. Named hashes cost their key names in
 * every call (twice: delta and sealing) even for a sealed bucket, whose hashes are gone; beyond a few,
 * one P item per bucket costs less (two tags of the medium tenant name 14 shards: 28 keys per bucket,
 * ioredis building the arguments took ~25% of that query).
 */
const HMGET_MAX_CODES = 64;
const NAMED_MAX_HASHES = 4;

/** What one bucket read asks readBuckets.lua for (its items, see the script's header). */
type Item =
  /**
   * The bucket's section of the cube; `held` = the cached copy whose version is sent. `fallback`:
   * the f section, read where the x section (`key`) is absent.
   */
  | { kind: 'S'; key: string; held: CachedSection | undefined; fallback?: string }
  /** One delta or sealing hash (HGETALL, or HMGET of `fields`); `part` as in FieldSums. */
  | { kind: 'H'; key: string; part: string; fields?: string[] }
  /** Every hash of the cube in the bucket's parts and zparts sets (of `allowed` parts only when given). */
  | {
      kind: 'P';
      cube: Cube;
      parts: string;
      zparts: string;
      /** The API's seal sequence: with zparts, the guard of the hashes left for C calls. */
      sequence: string;
      root: string;
      allowed: string[] | null;
    }
  /** The section parts of the cube (its parts list, delta and sealing names), summed like sections. */
  | { kind: 'L'; list: string; sealing: string }
  /**
   * A month whose day reads go as one (month-days.ts): `key` its t section, `sets` its parts and
   * zparts sets, then each listed day's. The reply is the month's version when none of the sets
   * exists, else nil.
   */
  | { kind: 'M'; key: string; sets: string[]; month: MonthRead };

/**
 * `use`: the recorded days, summed from the cache when the month still has the recorded version.
 * `record`: the day units read in the same call, recorded when the month and they have no delta.
 */
type MonthRead =
  | {
      kind: 'use';
      /** The record's key (month-days.ts), also naming the days' merged sum in the cache. */
      key: string;
      recorded: MonthDays;
      days: readonly BucketRead[];
      sections: (SectionView | null)[];
    }
  | { kind: 'record'; key: string; days: Unit[] };

interface Unit {
  read: BucketRead;
  items: Item[];
  /** Estimated work in Redis (see READ_MAX_KEYS). */
  weight: number;
  /** The family chunksOf keeps in one call, when not the bucket's own (a month read as one). */
  family?: string;
  /** Its section as read (S item; null = none), for a month's record. */
  section?: SectionView | null;
}

/**
 * With `codeCount`, a read of a k, i or s cube names its parts (0 .. (codeCount - 1) >> SHARD_BITS)
 * when there are at most this many; the script reads them by name where the bucket's parts set is
 * larger, and walks the set where it is smaller (none at all once the bucket is sealed).
 */
export const DENSE_PARTS_MAX = 64;

/** Work of a P item: it reads the hashes its sets list (few once a bucket is sealed). */
const PARTS_WEIGHT = 8;

/**
 * Work of one P item in its call, and of one C call, in readBuckets.lua's units (8 per hash plus
 * one per field): about 1 ms of Redis's thread. An unsealed bucket (the open hour) may list
 * thousands of hashes; what a P item leaves is read by C calls of at most this much each, guarded
 * against a seal in between (readBuckets.lua, "C").
 */
export const PARTS_BUDGET = 2_000;

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

/**
 * The section cube a query reads: its own cube, except that a query of cube f that neither
 * filters nor groups by tag sets reads the identity × key sections `x` (the tag-set detail of f is
 * most of its bytes). The delta of x is f's hashes.
 */
export function sectionCubeOf(q: Pick<CubeQuery, 'cube' | 'sets' | 'group'>): SectionCube {
  return q.cube === 'f' && q.sets === null && !q.group.set ? 'x' : q.cube;
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

/**
 * What every bucket of a query reads besides its section, worked out once per query: the hashes
 * it names (suffix, part, HMGET fields), or the parts it looks up in its parts sets (null = every
 * part of the cube).
 */
type DeltaPlan =
  | { kind: 'named'; hashes: { suffix: string; part: string; fields?: string[] }[] }
  | { kind: 'parts'; allowed: string[] | null };

function deltaPlanOf(q: CubeQuery): DeltaPlan {
  if (q.cube === 't') return { kind: 'named', hashes: [{ suffix: 't', part: '' }] };
  if (q.cube === 'f') {
    const parts = q.identities === null ? null : [...new Set(q.identities.map(code36))];
    if (parts !== null && q.identities!.length <= HMGET_MAX_CODES && parts.length <= NAMED_MAX_HASHES) {
      return { kind: 'named', hashes: parts.map((part) => ({ suffix: cubeSuffix('f', part), part })) };
    }
    return { kind: 'parts', allowed: parts };
  }
  const codes = filterCodes(q);
  if (codes !== null && codes.length <= HMGET_MAX_CODES) {
    const shards = fieldsByShard(codes);
    if (shards.size <= NAMED_MAX_HASHES) {
      const hashes = [...shards].map(([shard, fields]) => ({
        suffix: cubeSuffix(q.cube, shard),
        part: shard,
        fields,
      }));
      return { kind: 'named', hashes };
    }
  }
  if (codes === null && q.codeCount !== undefined) {
    // Every part the dictionary's length allows: the script reads them by name where the
    // parts set is larger (an hour not sealed yet lists every f part too).
    const parts = (q.codeCount + (1 << SHARD_BITS) - 1) >> SHARD_BITS;
    return {
      kind: 'parts',
      allowed: parts <= DENSE_PARTS_MAX ? Array.from({ length: parts }, (_, part) => code36(part)) : null,
    };
  }
  return { kind: 'parts', allowed: codes ? [...new Set(codes.map(shardOf))] : null };
}

/**
 * The items of one bucket read: its section, and its delta and sealing hashes (`<b>:<suffix>`
 * and `<b>:z:<suffix>`): named when the filters name them, else from the parts sets in Redis.
 */
function unitOf(
  q: CubeQuery,
  delta: DeltaPlan,
  read: BucketRead,
  keys: ReturnType<typeof apiKeys>,
  sections: SectionStore | undefined,
): Unit {
  const { res, index } = read;
  const cube = sectionCubeOf(q);
  const sectionKey = keys.section(res, index, cube);
  const held = sections?.get(sectionKey);
  const items: Item[] = [
    cube === 'x'
      ? { kind: 'S', key: sectionKey, held, fallback: keys.section(res, index, 'f') }
      : { kind: 'S', key: sectionKey, held },
  ];
  if (delta.kind === 'named') {
    for (const { suffix, part, fields } of delta.hashes) {
      for (const key of [keys.cube(res, index, suffix), keys.sealing(res, index, suffix)]) {
        items.push(fields ? { kind: 'H', key, part, fields } : { kind: 'H', key, part });
      }
    }
  } else {
    items.push({
      kind: 'P',
      cube: q.cube,
      parts: keys.parts(res, index),
      zparts: keys.sealingParts(res, index),
      sequence: keys.sealSequence,
      root: `${keys.bucketPrefix(res, index)}:`,
      allowed: delta.allowed,
    });
  }
  const list = partsListSuffix(q.cube);
  items.push({ kind: 'L', list: keys.cube(res, index, list), sealing: keys.sealing(res, index, list) });
  let weight = 0;
  for (const item of items) weight += item.kind === 'P' ? PARTS_WEIGHT : 1;
  return { read, items, weight };
}

/**
 * The units of `reads`: one per bucket, except that the day reads of a month (monthDayGroups) go
 * with an M item, and, with `useRecorded` and a record of that month's days whose sections the
 * cache holds, instead of their own units. A month's units (and the hours of its grouped days,
 * which the plan may read beside them) are one family; its M item comes after its days.
 */
function unitsOf(
  q: CubeQuery,
  delta: DeltaPlan,
  reads: readonly BucketRead[],
  keys: ReturnType<typeof apiKeys>,
  cache: SectionStore | undefined,
  useRecorded: boolean,
): Unit[] {
  const cube = sectionCubeOf(q);
  const groups = cache ? monthDayGroups(reads) : new Map<number, BucketRead[]>();
  const familyOfDay = new Map<number, string>();
  const replaced = new Set<BucketRead>();
  const records = new Map<string, Unit[]>();
  const months: Unit[] = [];
  for (const [month, days] of groups) {
    const family = `M${month}`;
    for (const read of days) familyOfDay.set(read.index, family);
    const key = `${keys.section('m', month, cube)}/days`;
    const sets = [keys.parts('m', month), keys.sealingParts('m', month)];
    const item = { kind: 'M', key: keys.section('m', month, 't'), sets } as const;
    const recorded = useRecorded ? cache!.monthDays(key) : undefined;
    const sections =
      recorded && recordedSections(recorded, days, (day) => cache!.get(keys.section('d', day, cube)));
    if (recorded && sections) {
      for (const read of days) replaced.add(read);
      const month = { kind: 'use', key, recorded, days, sections } as const;
      months.push({ read: days[0]!, family, weight: 1, items: [{ ...item, month }] });
    } else {
      for (const read of days) sets.push(keys.parts('d', read.index), keys.sealingParts('d', read.index));
      const record: Unit[] = [];
      records.set(family, record);
      const month = { kind: 'record', key, days: record } as const;
      months.push({ read: days[0]!, family, weight: 1 + days.length, items: [{ ...item, month }] });
    }
  }
  const units: Unit[] = [];
  for (const read of reads) {
    if (replaced.has(read)) continue;
    const unit = unitOf(q, delta, read, keys, cache);
    const day = read.res === 'd' ? read.index : read.res === 'h' ? dayOfHour(read.index) : undefined;
    const family = day === undefined ? undefined : familyOfDay.get(day);
    if (family !== undefined) {
      unit.family = family;
      if (read.res === 'd') records.get(family)?.push(unit);
    }
    units.push(unit);
  }
  return [...units, ...months];
}

/**
 * Whether a compaction between plan and read can change what the reads count, so that every call
 * must be read atomically with the compaction point and checked against the plan's:
 *   - an hour bucket is read beside the day or month rollup around it (or a day beside its
 *     month): a compaction in between would count that hour twice;
 *   - a rollup is open (its last hour is after the compaction point): it holds the hours up to
 *     the point, which the plan may have counted on; a compaction in between adds the next hour,
 *     which may lie past the range's end (a month read for "through yesterday" while the point
 *     is at the end of the range) or be read from its own bucket by a later call.
 */
export function readsDependOnCompaction(
  reads: readonly BucketRead[],
  compactedThrough: number | null,
): boolean {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    if (r.res === 'h') continue;
    if (compactedThrough === null || lastHourOf(r.res, r.index) > compactedThrough) return true;
    (r.res === 'd' ? days : months).add(r.index);
  }
  if (days.size === 0 && months.size === 0) return false;
  for (const r of reads) {
    if (r.res === 'h' && (days.has(dayOfHour(r.index)) || months.has(monthOfHour(r.index)))) return true;
    if (r.res === 'd' && months.has(monthOfDay(r.index))) return true;
  }
  return false;
}

export interface ReadOptions {
  /** Work per readBuckets call, in READ_MAX_KEYS units (default READ_MAX_KEYS). */
  maxKeys?: number;
  /** readBuckets calls per round trip (default READ_CALLS_PER_ROUND_TRIP). */
  callsPerRoundTrip?: number;
  /** Work of a P item and of a C call (default PARTS_BUDGET). */
  partsBudget?: number;
  /** Once aborted, no further Redis call is made: the read throws the signal's reason. */
  signal?: AbortSignal;
  /** Decoded sections kept between reads (section-cache.ts); without, every section is sent. */
  sections?: SectionStore;
  /**
   * A top-N query (libs/core topGroupsOf): only groups that can be among its first rows need be
   * summed whole. The counts may then hold just those; the caller still applies keepLargest.
   */
  top?: TopGroups;
  /**
   * A key to GET in the pipeline of every round, after its reads (the query service's `<p>:gen`:
   * verifications/one-generation.ts), so that a value read after every read of the call costs no
   * round trip of its own; its value after the last round is `after`. On one Redis a pipeline runs
   * in order; on a cluster its groups run in no order, so there the key is not read (`after` absent).
   */
  readAfter?: string;
}

/**
 * readBuckets calls sent per round trip. Sending a large read in rounds lets the commands of
 * other requests on the same connection in between (Redis answers one connection in order),
 * spreads the parsing over several turns of the event loop, and lets an aborted read stop.
 */
export const READ_CALLS_PER_ROUND_TRIP = 4;

export type CountsRead =
  /** `after`: readAfter's value, read after every read of the call (absent when it made none). */
  | { ok: true; counts: CodeCounts; after?: string | null }
  /** The compaction point moved since the plan: plan again with this one. */
  | { ok: false; compactedThrough: number | null };

type ItemReply = Buffer | number | null | Buffer[];

/**
 * Reads and sums the counters of `reads` (planned with `compactedThrough`): per bucket its
 * sealed section of the cube (sectionCubeOf), summed over typed arrays (read-sections.ts), plus
 * its sealing and delta hashes (read-fields.ts). Filters with an empty code list match nothing
 * and read nothing.
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
  if (reads.length === 0) return { ok: true, counts };
  const keys = apiKeys(space, apiId);
  const cache = options.sections;
  const delta = deltaPlanOf(q);
  const snapshot = readsDependOnCompaction(reads, compactedThrough);
  // Hash fields are summed per field first (per slice, and per part in cube f), so that each
  // distinct field is decoded into its group once however many buckets hold it.
  const sums = new Map<string, { slice: number | null; part: string; fields: FieldSums }>();
  const fieldsOf = (slice: number | null, part: string): FieldSums => {
    const id = `${slice}/${q.cube === 'f' ? part : ''}`;
    let entry = sums.get(id);
    if (!entry) {
      entry = { slice, part, fields: new FieldSums(q.cube) };
      sums.set(id, entry);
    }
    return entry.fields;
  };
  const sections = new SectionSums(q, options.top);
  const perRoundTrip = options.callsPerRoundTrip ?? READ_CALLS_PER_ROUND_TRIP;
  const readAfter = isCluster(redis) ? undefined : options.readAfter;
  let after: { value: string | null } | undefined;
  const exec = async (pipeline: ChainableCommander): Promise<ItemReply[][]> => {
    if (readAfter !== undefined) pipeline.get(readAfter);
    const replies = await execPipeline(pipeline);
    if (readAfter !== undefined) after = { value: replies.pop() as string | null };
    return replies as ItemReply[][];
  };
  const partsBudget = options.partsBudget ?? PARTS_BUDGET;
  const left: LeftHashes[] = [];
  // A month whose recorded days changed is read again day by day (and recorded anew), in a
  // second round: its hours were read with its M item, and with overlapping reads every call's
  // compaction point is checked, so no hour is counted twice in between.
  let pending: readonly BucketRead[] = reads;
  for (let round = 0; pending.length > 0; round++) {
    const units = unitsOf(q, delta, pending, keys, cache, round === 0);
    const chunks = chunksOf(units, pending, options.maxKeys ?? READ_MAX_KEYS);
    const again: BucketRead[] = [];
    for (let from = 0; from < chunks.length; from += perRoundTrip) {
      options.signal?.throwIfAborted();
      const batch = chunks.slice(from, from + perRoundTrip);
      const pipeline = newPipeline(redis);
      for (const chunk of batch)
        queueCommand(redis, pipeline, 'readBucketsBuffer', readBucketsArgs(keys, chunk, partsBudget));
      const replies = await exec(pipeline);
      if (snapshot) {
        // Each call read cmp with its buckets atomically, and a call holds whole families (see
        // chunksOf): every family was read at the compaction point the plan was made with.
        for (const reply of replies) {
          const now = parseIndex(reply[0]?.toString());
          if (now !== compactedThrough) return { ok: false, compactedThrough: now };
        }
      }
      batch.forEach((chunk, c) => {
        const reply = replies[c]!;
        let n = 1;
        for (const unit of chunk) {
          const { slice } = unit.read;
          const sign = signOf(unit.read);
          for (const item of unit.items) {
            const value = reply[n++];
            if (item.kind === 'S') {
              const section = sectionOf(item, value, cache);
              unit.section = section ?? null;
              if (section) sections.add(slice, section, sign);
            } else if (item.kind === 'M') {
              again.push(...monthOf(item.month, value, sections, cache!));
            } else if (item.kind === 'H') {
              if (Buffer.isBuffer(value) && value.length > 0) {
                fieldsOf(slice, item.part).addText(value.toString('latin1'), sign);
              }
            } else if (item.kind === 'L') {
              for (const part of (value ?? []) as Buffer[]) {
                sections.add(slice, compactCounts(decodeSection(part)), sign);
              }
            } else {
              const found = (value ?? []) as (Buffer | Buffer[])[];
              const rest = (found[0] ?? []) as Buffer[];
              if (rest.length > 0) {
                const guard = (found[1] as Buffer).toString('latin1');
                const names = rest.map((name) => name.toString('latin1'));
                left.push({ item, slice, sign, guard, names });
              }
              for (let m = 2; m + 1 < found.length; m += 2) {
                const member = (found[m] as Buffer).toString('latin1');
                fieldsOf(slice, partOfMember(item.cube, member)).addText(
                  (found[m + 1] as Buffer).toString('latin1'),
                  sign,
                );
              }
            }
          }
        }
      });
    }
    // The hashes P items left (a large unsealed bucket), in C calls of bounded work.
    for (let calls = leftCalls(keys, left.splice(0), partsBudget); calls.length > 0;) {
      options.signal?.throwIfAborted();
      const batch = calls.splice(0, perRoundTrip);
      const pipeline = newPipeline(redis);
      for (const call of batch) queueCommand(redis, pipeline, 'readBucketsBuffer', call.args);
      const replies = await exec(pipeline);
      for (const [c, reply] of replies.entries()) {
        const now = parseIndex(reply[0]?.toString());
        if (snapshot && now !== compactedThrough) return { ok: false, compactedThrough: now };
        // A seal of the bucket began or ended since its P item: read again from a new plan.
        if (!Array.isArray(reply[1])) return { ok: false, compactedThrough: now };
        const { left: from, names } = batch[c]!;
        reply[1].forEach((text, n) => {
          if (text.length === 0) return;
          const name = names[n]!;
          const member = name.startsWith('z:') ? name.slice(2) : name;
          fieldsOf(from.slice, partOfMember(from.item.cube, member)).addText(
            text.toString('latin1'),
            from.sign,
          );
        });
        // The budget ran out before the call's last hash: the rest in another call.
        const unread = names.slice(reply[1].length);
        if (unread.length > 0) calls.push(...leftCalls(keys, [{ ...from, names: unread }], partsBudget));
      }
    }
    pending = again;
  }
  options.signal?.throwIfAborted();
  const sel = selectionOf(q);
  for (const { slice, part, fields } of sums.values()) fields.addTo(counts.slice(slice), sel, part);
  sections.addTo(counts);
  return after === undefined ? { ok: true, counts } : { ok: true, counts, after: after.value };
}

/** The part of a P item's member ("f" -> "", "f:1a" -> "1a"), as FieldSums keys it. */
const partOfMember = (cube: Cube, member: string): string =>
  member === cube ? '' : member.slice(cube.length + 1);

/** Hashes a P item named but did not read, with what their counts add to. */
interface LeftHashes {
  item: Extract<Item, { kind: 'P' }>;
  slice: number | null;
  sign: Sign;
  /** The P item's guard: a C call reads only while the bucket's seal state still matches it. */
  guard: string;
  /** "member" (delta) or "z:member" (being sealed). */
  names: string[];
}

/**
 * The C calls that read what P items left: each names at most `budget` / 8 hashes (the script
 * stops earlier when their fields spend the budget), each bucket's names in calls of its own guard.
 */
function leftCalls(
  keys: ReturnType<typeof apiKeys>,
  lefts: readonly LeftHashes[],
  budget: number,
): { left: LeftHashes; names: string[]; args: string[] }[] {
  const perCall = Math.max(1, Math.floor(budget / PARTS_WEIGHT));
  const calls: { left: LeftHashes; names: string[]; args: string[] }[] = [];
  for (const left of lefts) {
    for (let from = 0; from < left.names.length; from += perCall) {
      const names = left.names.slice(from, from + perCall);
      const hashes = names.map((name) => left.item.root + name);
      const keysOf = [keys.compactedThrough, left.item.sequence, left.item.zparts, ...hashes];
      calls.push({
        left,
        names,
        args: [String(keysOf.length), ...keysOf, 'C', left.guard, String(names.length), String(budget)],
      });
    }
  }
  return calls;
}

/**
 * An M item's reply (the month's version when it and the listed days have no delta, else nil):
 * `use` sums the recorded days' cached sections when the version is the recorded one, else
 * returns their reads to be read one by one; `record` records the days read in the same call.
 */
function monthOf(
  month: MonthRead,
  value: ItemReply | undefined,
  sections: SectionSums,
  cache: SectionStore,
): readonly BucketRead[] {
  const version = Buffer.isBuffer(value) ? value : undefined;
  if (month.kind === 'use') {
    if (!version?.equals(month.recorded.version)) return month.days;
    cache.monthHit();
    const slice = month.days[0]!.slice;
    if (month.days.every((read) => read.slice === slice)) {
      // One slice (a query without time granularity): the days' sum, kept while the month holds.
      const summed = summedDays(month, cache);
      if (summed) sections.add(slice, summed, 1);
      return [];
    }
    month.days.forEach((read, n) => {
      const section = month.sections[n];
      if (section) sections.add(read.slice, section, signOf(read));
    });
    return [];
  }
  if (!version) return [];
  const days = new Map<number, Buffer | null>();
  for (const unit of month.days) {
    if (unit.section === null) {
      days.set(unit.read.index, null);
      continue;
    }
    const key = unit.items.find((item) => item.kind === 'S')!.key;
    const cached = cache.get(key);
    // The cache keeps what it can (a section larger than its bound is not kept): no record then.
    if (!cached || cached.section !== unit.section) return [];
    days.set(unit.read.index, cached.version);
  }
  cache.setMonthDays(month.key, { version: Buffer.from(version), days });
  return [];
}

/**
 * The recorded days' sections merged into one (rows of equal codes summed), from the cache when
 * merged before under the same month version: while the month keeps it, no day changed
 * (month-days.ts). 30 days of one API's `s` or `i` sections hold ~1,300–2,000 rows each, and
 * their merge about as many: a query over them without granularity sums a twentieth of the rows.
 */
function summedDays(
  month: Extract<MonthRead, { kind: 'use' }>,
  cache: SectionStore,
): SectionView | undefined {
  const key = `${month.key}:${month.days.map((read) => read.index).join(',')}`;
  const held = cache.get(key);
  if (held?.version.equals(month.recorded.version)) return held.section;
  const present = month.sections.filter((section) => section !== null);
  if (present.length === 0) return undefined;
  let summed = present[0]!;
  if (present.length > 1) {
    let merged = mergeSections(present[0]!, present[1]!, 0);
    for (const section of present.slice(2)) merged = mergeSections(merged, section, 0);
    summed = compactCounts(merged);
  }
  cache.set(key, { version: Buffer.from(month.recorded.version), section: summed });
  return summed;
}

/** The section of an S item's reply: sent (decoded, cached), unchanged (the cached copy) or none. */
function sectionOf(
  item: Extract<Item, { kind: 'S' }>,
  value: ItemReply | undefined,
  cache: SectionStore | undefined,
): SectionView | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') {
    if (!item.held) throw new Error(`readBuckets: ${item.key} unchanged, but no version was sent`);
    cache?.hit();
    return item.held.section;
  }
  if (!Buffer.isBuffer(value)) throw new Error(`readBuckets: unexpected reply for ${item.key}`);
  const section = compactCounts(decodeSection(value));
  if (cache) {
    cache.miss();
    const version = Buffer.from(value.subarray(SECTION_VERSION_OFFSET, SECTION_VERSION_OFFSET + 8));
    cache.set(item.key, { version, section });
  }
  return section;
}

/**
 * Work per readBuckets call, in units of about one hash read (a section, a hash, or a few for
 * a parts lookup: PARTS_WEIGHT). A call blocks Redis while it runs (about 9 µs per hash plus a
 * fraction of a µs per field, so 500 hashes are several ms; a section is one memcpy); this bounds
 * it, except for one family larger than this, which is never split.
 */
export const READ_MAX_KEYS = 500;

/**
 * The bucket reads in readBuckets calls of at most `maxKeys` work, each call made of whole
 * families. A family is the coarsest bucket read around a bucket (its month when the month
 * rollup is read, else its day when the day rollup is read, else the bucket itself): only
 * buckets of one family can count the same hour twice (or subtract an hour their rollup lacks)
 * if a compaction or a late event lands between their reads, so each family is read in one
 * atomic call, with the compaction point. A bucket's section, sealing and delta hashes are
 * always read in one call (a seal moves counts between them).
 */
function chunksOf(units: readonly Unit[], reads: readonly BucketRead[], maxKeys: number): Unit[][] {
  const days = new Set<number>();
  const months = new Set<number>();
  for (const r of reads) {
    if (r.res === 'd') days.add(r.index);
    else if (r.res === 'm') months.add(r.index);
  }
  const familyOf = ({ read, family }: Unit): string => {
    if (family !== undefined) return family;
    const month =
      read.res === 'm' ? read.index : read.res === 'd' ? monthOfDay(read.index) : monthOfHour(read.index);
    if (months.has(month)) return `m${month}`;
    if (read.res === 'm') return `m${read.index}`;
    const day = read.res === 'd' ? read.index : dayOfHour(read.index);
    if (days.has(day)) return `d${day}`;
    return `${read.res}${read.index}`;
  };
  const families = new Map<string, Unit[]>();
  for (const u of units) {
    const family = familyOf(u);
    const members = families.get(family);
    if (members) members.push(u);
    else families.set(family, [u]);
  }
  const chunks: Unit[][] = [];
  let chunk: Unit[] = [];
  let weight = 0;
  for (const members of families.values()) {
    const add = members.reduce((sum, u) => sum + u.weight, 0);
    if (chunk.length > 0 && weight + add > maxKeys) {
      chunks.push(chunk);
      chunk = [];
      weight = 0;
    }
    for (const u of members) chunk.push(u);
    weight += add;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * numkeys, KEYS and ARGV of one readBuckets call (commands/readBuckets.lua). Per bucket: its S
 * item; before its H, P and L items a G guard (no parts and no zparts set: no hash or list to
 * read), and the field lists of its HMGETs and P items, each sent once per call (F).
 */
function readBucketsArgs(
  keys: ReturnType<typeof apiKeys>,
  chunk: readonly Unit[],
  budget: number,
): (string | Buffer)[] {
  const names: string[] = [keys.compactedThrough];
  const argv: (string | Buffer)[] = [];
  const lists = new Map<string, number>();
  // Every bucket's items share the query's lists: by reference first, so that a long list is joined once.
  const seen = new Map<readonly string[], number>();
  const listOf = (fields: readonly string[]): number => {
    let n = seen.get(fields);
    if (n !== undefined) return n;
    const id = fields.join(' ');
    n = lists.get(id);
    if (n === undefined) {
      n = lists.size + 1;
      lists.set(id, n);
      argv.push('F', String(fields.length), ...fields);
    }
    seen.set(fields, n);
    return n;
  };
  for (const unit of chunk) {
    // Field lists are defined (F) before the G guard: the script steps over guarded items only.
    const hashes = unit.items.filter((item) => item.kind === 'H');
    const listIds = hashes.map((item) => (item.fields ? listOf(item.fields) : 0));
    const partLists = new Map<Item, number>();
    for (const item of unit.items) {
      if (item.kind === 'P') partLists.set(item, item.allowed ? listOf(item.allowed) : 0);
    }
    const guarded = unit.items.filter((item) => item.kind === 'H' || item.kind === 'P' || item.kind === 'L');
    for (const item of unit.items) {
      if (item.kind === 'S') {
        names.push(item.key);
        if (item.fallback) names.push(item.fallback);
        argv.push(item.fallback ? 'X' : 'S', item.held?.version ?? '');
        if (guarded.length > 0) {
          names.push(
            keys.parts(unit.read.res, unit.read.index),
            keys.sealingParts(unit.read.res, unit.read.index),
          );
          argv.push('G', String(guarded.length));
        }
      } else if (item.kind === 'L') {
        names.push(item.list, item.sealing);
        argv.push('L');
      } else if (item.kind === 'H') {
        names.push(item.key);
        argv.push('H', String(listIds[hashes.indexOf(item)]));
      } else if (item.kind === 'M') {
        names.push(item.key, ...item.sets);
        argv.push('M', String(item.sets.length / 2 - 1));
      } else {
        names.push(item.parts, item.zparts, item.sequence);
        argv.push('P', item.root, item.cube, String(partLists.get(item)), String(budget));
      }
    }
  }
  return [String(names.length), ...names, ...argv];
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

/**
 * Sealing (docs/store-v2.md "Sealing"): folds the delta of a bucket (its hashes and its lists of
 * section parts) into its sections.
 * beginSeal-5.lua moves the delta out of the writers' way, this module adds it to the current
 * sections (section/delta-rows.ts, section/codec.ts) and commitSeal-4.lua swaps the result in
 * (scripts/seal-scripts.ts calls both).
 * The choice of buckets (`sealableBuckets`) is pure; the rest is the Redis adapter around it.
 */
import { expiresAt, isEdgeResolution, lastHourOf, type Retention } from '@va/core';
import type { RedisClient } from './connection';
import { apiKeys, cubeOfPartsList, RESOLUTIONS, type KeySpace, type SealedResolution } from './keys';
import { openHoursToSeal, readOpenHours, type OpenBucket, type OpenHourPolicy } from './open-hours';
import { execPipeline, newPipeline } from './pipeline';
import {
  decodeSection,
  deriveIdentityKey,
  emptySection,
  encodeSection,
  mergeSections,
  SECTION_CUBES,
  sumSections,
  SECTION_VERSION_OFFSET,
  type Section,
  type SectionCube,
} from './section/codec';
import { addDeltaHash, emptySectionRows } from './section/delta-rows';
import {
  beginSeal,
  beginSeals,
  commitSeal,
  commitSeals,
  type SealBegun,
  type SealCommit,
  type SealTarget,
} from './scripts/seal-scripts';

export interface DirtyBucket {
  res: SealedResolution;
  index: number;
  /** The bucket's last hour (its score in dirty). */
  lastHour: number;
}

/** An hour after the closed bound (all of them without one): live writes may still come. */
const isOpen = (hour: number, closedBound: number | null): boolean =>
  closedBound === null || hour > closedBound;

/**
 * The dirty buckets that may be sealed now, oldest first, at most `max`: an hour once closed
 * (`<= closedBound`, compacted or not: compactNextHour reads an hour's sections and sealing hashes
 * too, and a sealed hour compacts in a few copies), any day or month (only compaction and late
 * events write them; an open one is sealed again when written again), a billing zone's edge once its
 * UTC day is closed as an hour is (its score, the day's last hour, `<= closedBound`): live events write it.
 */
export function sealableBuckets(
  dirty: readonly { member: string; score: number }[],
  closedBound: number | null,
  max: number,
): DirtyBucket[] {
  const out: DirtyBucket[] = [];
  for (const { member, score } of dirty) {
    const [res, index] = member.split(':') as [SealedResolution, string];
    const edge = isEdgeResolution(res);
    if (!edge && !RESOLUTIONS.includes(res)) continue;
    if ((res === 'h' || edge) && isOpen(score, closedBound)) continue;
    out.push({ res, index: Number(index), lastHour: score });
  }
  out.sort((a, b) => a.lastHour - b.lastHour || a.res.localeCompare(b.res));
  return out.slice(0, max);
}

export interface SealOptions {
  now: number;
  retention: Retention;
}

export interface BucketSealed {
  /** Bytes of the sections written. */
  bytes: number;
  /** Delta hashes folded in. */
  hashes: number;
}

/**
 * Whether a bucket of this resolution gets the derived identity × key section x. Days and months
 * only: most hour buckets hold a few events (the 100 background APIs of the benchmark's data set:
 * about five per API-hour), where x's own key (name, expiry, string header) costs more than its
 * rows (docs/benchmarks-history.md, "two full runs, before and after hours lost their `x` section").
 * A reader of x reads the hour's f section instead, which has the identity and key columns too.
 */
export const withIdentityKey = (res: SealedResolution): boolean => res !== 'h';

/** Delta hashes read per round trip while sealing (plain HGETALLs, not a script). */
const HASHES_PER_ROUND_TRIP = 500;

/**
 * Seals one bucket. Null when there was nothing to seal or another sealer got there first (its
 * commit wins; this one's reads are discarded and the bucket stays as the other left it).
 */
export async function sealBucket(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  res: SealedResolution,
  index: number,
  options: SealOptions,
): Promise<BucketSealed | null> {
  const target = { keys: apiKeys(space, apiId), res, index };
  const begun = await beginSeal(redis, target);
  if (begun.kind !== 'seal') return null;
  const prepared = await prepareSeal(redis, target, begun, options);
  if ((await commitSeal(redis, target, prepared.commit)) !== 'ok') return null;
  return prepared.sealed;
}

/** A seal read and added up, ready to commit: what commitSeal-4.lua gets, and what it would write. */
export interface PreparedSeal {
  commit: SealCommit;
  sealed: BucketSealed;
}

/**
 * The middle step of a seal (no write): reads the sealing hashes and lists of the seal `begun` and
 * the bucket's current sections, and adds them up into the new sections.
 */
export async function prepareSeal(
  redis: RedisClient,
  target: SealTarget,
  begun: Extract<SealBegun, { kind: 'seal' }>,
  options: SealOptions,
): Promise<PreparedSeal> {
  const { keys, res, index } = target;
  const current = (await execPipeline(
    SECTION_CUBES.reduce((p, cube) => p.getBuffer(keys.section(res, index, cube)), newPipeline(redis)),
  )) as (Buffer | null)[];
  const hashSuffixes = begun.suffixes.filter((suffix) => cubeOfPartsList(suffix) === undefined);
  const hashes: Record<string, string>[] = [];
  for (let from = 0; from < hashSuffixes.length; from += HASHES_PER_ROUND_TRIP) {
    const chunk = hashSuffixes.slice(from, from + HASHES_PER_ROUND_TRIP);
    const replies = await execPipeline(
      chunk.reduce((p, suffix) => p.hgetall(keys.sealing(res, index, suffix)), newPipeline(redis)),
    );
    hashes.push(...(replies as Record<string, string>[]));
  }
  const listSuffixes = begun.suffixes.filter((suffix) => cubeOfPartsList(suffix) !== undefined);
  const lists = (
    listSuffixes.length === 0
      ? []
      : await execPipeline(
          listSuffixes.reduce(
            (p, suffix) => p.lrangeBuffer(keys.sealing(res, index, suffix), 0, -1),
            newPipeline(redis),
          ),
        )
  ) as Buffer[][];
  return foldSeal(target, begun, { current, hashes, lists }, options);
}

/** What a seal read: the current sections (SECTION_CUBES order), its sealing hashes and lists. */
interface SealReads {
  current: readonly (Buffer | null)[];
  /** The hashes among the seal's suffixes, in their order. */
  hashes: readonly Record<string, string>[];
  /** The parts lists among the seal's suffixes, in their order. */
  lists: readonly Buffer[][];
}

/** Adds up what a seal read into its new sections (no I/O): the commit, and what it writes. */
function foldSeal(
  target: SealTarget,
  begun: Extract<SealBegun, { kind: 'seal' }>,
  reads: SealReads,
  options: SealOptions,
): PreparedSeal {
  const { res, index } = target;
  const { version, suffixes } = begun;
  const rows = emptySectionRows();
  const held: Buffer[] = [];
  const old = new Map<SectionCube, Section>();
  SECTION_CUBES.forEach((cube, n) => {
    const bytes = reads.current[n];
    held.push(bytes ? bytes.subarray(SECTION_VERSION_OFFSET, SECTION_VERSION_OFFSET + 8) : Buffer.alloc(0));
    // x is derived from f below: its old rows are in f already.
    if (bytes && cube !== 'x') old.set(cube, decodeSection(bytes));
  });
  const parts = new Map<SectionCube, Section[]>();
  let hash = 0;
  let list = 0;
  for (const suffix of suffixes) {
    const cube = cubeOfPartsList(suffix);
    if (cube === undefined) {
      addDeltaHash(rows, suffix, reads.hashes[hash++]!);
      continue;
    }
    const sections = reads.lists[list++]!.map((bytes) => decodeSection(bytes));
    parts.set(cube, [...(parts.get(cube) ?? []), ...sections]);
  }

  const expireAt = expiresAt(res, index, options.retention);
  // The delta is small, the old section may be large: sort the delta alone, add the parts to it,
  // then merge linearly with the old section.
  const merged = (cube: SectionCube): Section => {
    const delta = sumSections(
      cube,
      [rows.get(cube)!.toSection(version), ...(parts.get(cube) ?? [])],
      version,
    );
    return mergeSections(old.get(cube) ?? emptySection(cube), delta, version);
  };
  const f = merged('f');
  const sections = SECTION_CUBES.map((cube, n) => {
    // No x for an hour (commitSeal then deletes one an earlier seal wrote; readers of x fall back to f).
    if (cube === 'x' && !withIdentityKey(res)) return { cube, held: held[n]!, section: Buffer.alloc(0) };
    const section = cube === 'x' ? deriveIdentityKey(f, version) : cube === 'f' ? f : merged(cube);
    return { cube, held: held[n]!, section: section.rows > 0 ? encodeSection(section) : Buffer.alloc(0) };
  });
  return {
    commit: { sealId: begun.sealId, expireAt: expireAt > options.now ? expireAt : 0, sections },
    sealed: {
      bytes: sections.reduce((sum, { section }) => sum + section.length, 0),
      hashes: suffixes.length,
    },
  };
}

/**
 * Buckets sealed together (sealBuckets): their beginSeal calls in one round trip, their reads in as
 * few as READS_PER_ROUND_TRIP allows, their commitSeal calls in one per read round trip. A small API's
 * hour holds a handful of hashes, and a seal per bucket cost it four or five round trips.
 */
const BUCKETS_PER_BATCH = 64;
/** Commands (GET, HGETALL, LRANGE) per read round trip; a bucket's reads are never split. */
const READS_PER_ROUND_TRIP = 1_000;

/**
 * Seals several buckets of one API as sealBucket does each (the same three steps per bucket, each
 * bucket's begin, reads and commit in that order), with the steps of many buckets sharing round
 * trips. Per bucket: what it sealed, or null (nothing to seal, or another sealer got there first).
 */
export async function sealBuckets(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  buckets: readonly { res: SealedResolution; index: number }[],
  options: SealOptions,
): Promise<(BucketSealed | null)[]> {
  const keys = apiKeys(space, apiId);
  const targets: SealTarget[] = buckets.map(({ res, index }) => ({ keys, res, index }));
  const begun = await beginSeals(redis, targets);
  const out: (BucketSealed | null)[] = targets.map(() => null);
  let group: number[] = [];
  let reads = 0;
  const flush = async () => {
    if (group.length === 0) return;
    const pipeline = newPipeline(redis);
    for (const n of group) {
      const { res, index } = targets[n]!;
      const seal = begun[n] as Extract<SealBegun, { kind: 'seal' }>;
      for (const cube of SECTION_CUBES) pipeline.getBuffer(keys.section(res, index, cube));
      for (const suffix of seal.suffixes) {
        if (cubeOfPartsList(suffix) === undefined) pipeline.hgetall(keys.sealing(res, index, suffix));
      }
      for (const suffix of seal.suffixes) {
        if (cubeOfPartsList(suffix) !== undefined)
          pipeline.lrangeBuffer(keys.sealing(res, index, suffix), 0, -1);
      }
    }
    const replies = await execPipeline(pipeline);
    let at = 0;
    const prepared = group.map((n) => {
      const seal = begun[n] as Extract<SealBegun, { kind: 'seal' }>;
      const hashCount = seal.suffixes.filter((suffix) => cubeOfPartsList(suffix) === undefined).length;
      const current = replies.slice(at, (at += SECTION_CUBES.length)) as (Buffer | null)[];
      const hashes = replies.slice(at, (at += hashCount)) as Record<string, string>[];
      const lists = replies.slice(at, (at += seal.suffixes.length - hashCount)) as Buffer[][];
      return { n, seal: foldSeal(targets[n]!, seal, { current, hashes, lists }, options) };
    });
    const committed = await commitSeals(
      redis,
      prepared.map(({ n, seal }) => ({ target: targets[n]!, commit: seal.commit })),
    );
    prepared.forEach(({ n, seal }, k) => {
      if (committed[k] === 'ok') out[n] = seal.sealed;
    });
    group = [];
    reads = 0;
  };
  for (const [n, b] of begun.entries()) {
    if (b.kind !== 'seal') continue;
    const cost = SECTION_CUBES.length + b.suffixes.length;
    if (reads > 0 && reads + cost > READS_PER_ROUND_TRIP) await flush();
    group.push(n);
    reads += cost;
  }
  await flush();
  return out;
}

export interface SealRun {
  sealed: number;
  bytes: number;
  hashes: number;
  /** Dirty buckets left for the next run (sealable or not). */
  dirtyLeft: number;
  /**
   * Last hour of the first sealable bucket this run left (the `max` reached, or the signal): null
   * when it sealed every one. Compaction stops before it, so that it compacts sealed hours only.
   */
  firstLeft: number | null;
}

/** The API's dirty set: members "<r>:<t>" with their scores (the bucket's last hour). */
export async function readDirty(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
): Promise<{ member: string; score: number }[]> {
  const raw = await redis.zrange(apiKeys(space, apiId).dirty, 0, -1, 'WITHSCORES');
  const dirty: { member: string; score: number }[] = [];
  for (let n = 0; n < raw.length; n += 2) dirty.push({ member: raw[n]!, score: Number(raw[n + 1]) });
  return dirty;
}

/** Buckets sealed per run at most (one compactor job); the next job goes on. */
export const SEAL_MAX_BUCKETS = 2_000;

/**
 * Seals the API's sealable dirty buckets (at most `max`; of resolution `only` when given). Hours
 * after `closedBound` (the compactor's closed bound: live writes may still come) are sealed only with
 * `openHours`, as its policy says (open-hours.ts), after every other bucket.
 */
export async function sealApi(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  closedBound: number | null,
  options: SealOptions & {
    max?: number;
    signal?: AbortSignal;
    only?: SealedResolution;
    openHours?: OpenHourPolicy;
  },
): Promise<SealRun> {
  await markV1BucketsDirty(redis, space, apiId, options);
  const dirty = await readDirty(redis, space, apiId);
  const run: SealRun = { sealed: 0, bytes: 0, hashes: 0, dirtyLeft: dirty.length, firstLeft: null };
  const only = options.only;
  const wanted = only ? dirty.filter(({ member }) => member.startsWith(`${only}:`)) : dirty;
  const sealable = sealableBuckets(wanted, closedBound, Infinity);
  if (options.openHours) {
    const open: OpenBucket[] = [];
    for (const { member, score } of wanted) {
      if (!isOpen(score, closedBound)) continue;
      const [res, index] = member.split(':') as [SealedResolution, string];
      if (res === 'h' || isEdgeResolution(res)) open.push({ res, index: Number(index) });
    }
    const states = await readOpenHours(redis, space, apiId, open);
    for (const { res, index } of openHoursToSeal(states, options.now, options.openHours)) {
      sealable.push({ res, index, lastHour: lastHourOf(res, index) });
    }
  }
  const max = options.max ?? SEAL_MAX_BUCKETS;
  for (let from = 0; from < sealable.length;) {
    if (from >= max || options.signal?.aborted) {
      run.firstLeft = sealable[from]!.lastHour;
      break;
    }
    const batch = sealable.slice(from, Math.min(from + BUCKETS_PER_BATCH, max));
    from += batch.length;
    const done = await sealBuckets(redis, space, apiId, batch, options);
    run.dirtyLeft -= batch.length;
    for (const sealed of done) {
      if (!sealed) continue;
      run.sealed++;
      run.bytes += sealed.bytes;
      run.hashes += sealed.hashes;
    }
  }
  return run;
}

/**
 * Moving a store written by the v1 code (docs/store-v2.md "Moving a running deployment"): its
 * buckets are in idx:h/d/m but not in dirty. Done once per API: the API's seq is created after
 * (expiring after the month retention unless a seal moves it on: commitSeal-4.lua). Marking a
 * bucket twice is harmless; a crash before seq is set marks them again.
 */
async function markV1BucketsDirty(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  { now, retention }: SealOptions,
): Promise<void> {
  const keys = apiKeys(space, apiId);
  if ((await redis.exists(keys.sealSequence)) === 1) return;
  for (const res of RESOLUTIONS) {
    const indices = (await redis.zrange(keys.bucketIndex(res), 0, -1)).map(Number);
    for (let from = 0; from < indices.length; from += 1_000) {
      const args: (string | number)[] = [];
      for (const t of indices.slice(from, from + 1_000)) args.push(lastHourOf(res, t), `${res}:${t}`);
      await redis.zadd(keys.dirty, ...args);
    }
  }
  await redis.set(keys.sealSequence, '0', 'PXAT', now + retention.monthMs + 32 * 24 * 3_600_000, 'NX');
}

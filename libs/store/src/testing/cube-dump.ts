/**
 * Reads back every counter of an API at one resolution and decodes it into plain counts per
 * dimension: the verification helper of the exactness tests (@va/store/testing; no production module may
 * import it).
 * Not a query path: it reads everything: every bucket's sealed sections, the hashes being sealed
 * and the delta hashes (docs/store-v2.md), which together hold each count exactly once. They are read
 * in two MULTIs per hundred buckets (snapshotBuckets), so that a seal running meanwhile cannot show a count
 * twice; one bucket after another, two round trips per bucket cost the tests ~14 s of CPU in socket writes.
 */
import type { RedisClient } from '../connection';
import { OUTCOME_COUNT } from '@va/contracts';
import { isEdgeResolution, type Resolution } from '@va/core';
import { DictionaryReader } from '../dictionary';
import { decodeCode, decodeField } from '../field-codec';
import {
  apiKeys,
  cubeOfPartsList,
  NO_IDENTITY_PART,
  type DictName,
  type KeySpace,
  type SealedResolution,
} from '../keys';
import { execPipeline } from '../pipeline';
import { decodeSection, NO_IDENTITY, SECTION_VERSION_OFFSET, type Section } from '../section/codec';

/** The cubes cube-dump reads from sections (x is derived from f: it would count f twice). */
const DUMPED_SECTIONS = ['t', 'k', 'i', 's', 'f'] as const;

/** Nine counts in OUTCOMES order. */
export type Counts = number[];

/** Counts of one API, per dimension, as the cubes store them. Values are dictionary values. */
export interface DecodedCounts {
  /** cube t */
  total: Counts;
  /** cube k: keyId -> counts */
  byKey: Map<string, Counts>;
  /** cube i: identity value "id\nexternalId" -> counts */
  byIdentity: Map<string, Counts>;
  /** cube s: tag set value "a,b" ("" = no tags) -> counts */
  byTagSet: Map<string, Counts>;
  /** cube f: fullKey(keyId, tagSet, identity or "") -> counts */
  full: Map<string, Counts>;
}

export const fullKey = (keyId: string, tagSet: string, identity: string): string =>
  `${keyId}\u0000${tagSet}\u0000${identity}`;

export const emptyCounts = (): Counts => new Array<number>(OUTCOME_COUNT).fill(0);

export const emptyDecodedCounts = (): DecodedCounts => ({
  total: emptyCounts(),
  byKey: new Map(),
  byIdentity: new Map(),
  byTagSet: new Map(),
  full: new Map(),
});

function add(map: Map<string, Counts>, key: string, o: number, n: number): void {
  let counts = map.get(key);
  if (!counts) {
    counts = emptyCounts();
    map.set(key, counts);
  }
  counts[o]! += n;
}

function decodeCube(
  into: DecodedCounts,
  suffix: string,
  fields: Record<string, string>,
  dicts: DictionaryReader,
): void {
  const [cube, part] = suffix.split(':') as [string, string | undefined];
  const value = (d: DictName, code: number): string => {
    const v = dicts.value(d, code);
    if (v === undefined) throw new Error(`cube ${suffix}: code ${code} not in dictionary ${d}`);
    return v;
  };
  for (const [field, raw] of Object.entries(fields)) {
    const n = Number(raw);
    // field-codec.ts: a malformed field throws here too (the dump is a reader like any other).
    const { outcome: o, codes } = decodeField(cube, field);
    switch (cube) {
      case 't':
        into.total[o]! += n;
        break;
      case 'k':
        add(into.byKey, value('k', codes[0]!), o, n);
        break;
      case 'i':
        add(into.byIdentity, value('i', codes[0]!), o, n);
        break;
      case 's':
        add(into.byTagSet, value('s', codes[0]!), o, n);
        break;
      case 'f': {
        const identity = part === NO_IDENTITY_PART || part === undefined ? '' : value('i', decodeCode(part));
        add(into.full, fullKey(value('k', codes[0]!), value('s', codes[1]!), identity), o, n);
        break;
      }
      default:
        throw new Error(`unknown cube suffix ${suffix}`);
    }
  }
}

function decodeSectionInto(into: DecodedCounts, section: Section, dicts: DictionaryReader): void {
  const value = (d: DictName, code: number): string => {
    const v = dicts.value(d, code);
    if (v === undefined) throw new Error(`section ${section.cube}: code ${code} not in dictionary ${d}`);
    return v;
  };
  for (let r = 0; r < section.rows; r++) {
    const dim = (d: number) => section.dims[d]![r]!;
    for (let o = 0; o < OUTCOME_COUNT; o++) {
      const n = section.counts[r * OUTCOME_COUNT + o]!;
      if (n === 0) continue;
      switch (section.cube) {
        case 't':
          into.total[o]! += n;
          break;
        case 'k':
          add(into.byKey, value('k', dim(0)), o, n);
          break;
        case 'i':
          add(into.byIdentity, value('i', dim(0)), o, n);
          break;
        case 's':
          add(into.byTagSet, value('s', dim(0)), o, n);
          break;
        case 'f': {
          const identity = dim(0) === NO_IDENTITY ? '' : value('i', dim(0));
          add(into.full, fullKey(value('k', dim(1)), value('s', dim(2)), identity), o, n);
          break;
        }
        default:
          throw new Error(`cube-dump: unexpected section ${section.cube}`);
      }
    }
  }
}

/** Buckets read per round trip: one MULTI holds their sets and sections, the next one their hashes. */
const BUCKETS_PER_READ = 100;

/** One bucket as the dump read it: its parts (suffixes), its sections, and the hashes or lists each suffix names. */
interface BucketSnapshot {
  suffixes: string[];
  sections: (Buffer | null)[];
  /** Per suffix: [delta, sealing] replies. */
  stored: [unknown, unknown][];
}

/**
 * Reads buckets `ts` in two MULTIs (all of an API's keys share one hash slot, so one MULTI may span
 * its buckets): first every bucket's sets and sections, then every hash they name under both its delta
 * and its sealing name, and the section versions again. A seal starting in between only renames hashes
 * (found under the other name); one finishing in between changes a section version: such a bucket is
 * left out of the result, to be read again.
 */
async function snapshotBuckets(
  redis: RedisClient,
  keys: ReturnType<typeof apiKeys>,
  r: SealedResolution,
  ts: readonly number[],
): Promise<Map<number, BucketSnapshot>> {
  const snapshot = redis.multi();
  for (const t of ts) {
    snapshot.smembers(keys.parts(r, t)).smembers(keys.sealingParts(r, t));
    for (const cube of DUMPED_SECTIONS) snapshot.getBuffer(keys.section(r, t, cube));
  }
  const first = await execPipeline(snapshot);
  const perBucket = 2 + DUMPED_SECTIONS.length;
  const snapshots = ts.map((_, n) => {
    const [parts, zparts, ...sections] = first.slice(n * perBucket, (n + 1) * perBucket) as [
      string[],
      string[],
      ...(Buffer | null)[],
    ];
    return { suffixes: [...new Set([...parts, ...zparts])], sections };
  });

  const pipeline = redis.multi();
  ts.forEach((t, n) => {
    for (const suffix of snapshots[n]!.suffixes) {
      if (cubeOfPartsList(suffix) !== undefined) {
        pipeline.lrangeBuffer(keys.cube(r, t, suffix), 0, -1).lrangeBuffer(keys.sealing(r, t, suffix), 0, -1);
      } else pipeline.hgetall(keys.cube(r, t, suffix)).hgetall(keys.sealing(r, t, suffix));
    }
    for (const cube of DUMPED_SECTIONS) {
      pipeline.getrangeBuffer(keys.section(r, t, cube), SECTION_VERSION_OFFSET, SECTION_VERSION_OFFSET + 7);
    }
  });
  const second = await execPipeline(pipeline);

  const reads = new Map<number, BucketSnapshot>();
  let at = 0;
  ts.forEach((t, n) => {
    const { suffixes, sections } = snapshots[n]!;
    const stored = suffixes.map((_, s) => [second[at + 2 * s], second[at + 2 * s + 1]] as [unknown, unknown]);
    at += 2 * suffixes.length;
    const versionsNow = second.slice(at, at + DUMPED_SECTIONS.length) as Buffer[];
    at += DUMPED_SECTIONS.length;
    const moved = sections.some(
      (bytes, c) =>
        !(bytes?.subarray(SECTION_VERSION_OFFSET, SECTION_VERSION_OFFSET + 8) ?? Buffer.alloc(0)).equals(
          versionsNow[c]!,
        ),
    );
    if (!moved) reads.set(t, { suffixes, sections, stored });
  });
  return reads;
}

function decodeBucket(read: BucketSnapshot, into: DecodedCounts[], dicts: DictionaryReader): void {
  const partSections: Buffer[] = [];
  read.suffixes.forEach((suffix, n) => {
    const [delta, sealing] = read.stored[n]!;
    if (cubeOfPartsList(suffix) !== undefined) {
      for (const list of [delta, sealing] as Buffer[][]) partSections.push(...list);
      return;
    }
    for (const hash of [delta, sealing] as Record<string, string>[])
      for (const counts of into) decodeCube(counts, suffix, hash, dicts);
  });
  for (const bytes of [...read.sections, ...partSections]) {
    if (!bytes) continue;
    const section = decodeSection(bytes);
    for (const counts of into) decodeSectionInto(counts, section, dicts);
  }
}

/**
 * Every bucket of resolution r (from idx:<r>) decoded, and their sum. `buckets` limits the read
 * to some bucket indices; a billing zone's edges (no idx) must be named so.
 */
export async function dumpApiCounts(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  r: SealedResolution,
  buckets?: readonly number[],
): Promise<{ perBucket: Map<number, DecodedCounts>; sum: DecodedCounts }> {
  const keys = apiKeys(space, apiId);
  if (buckets === undefined && isEdgeResolution(r)) throw new Error(`cube-dump: name the buckets of ${r}`);
  const indices = buckets ?? (await redis.zrange(keys.bucketIndex(r as Resolution), 0, -1)).map(Number);
  const dicts = new DictionaryReader(redis, space, apiId);
  await dicts.load();

  const decoded = new Map<number, DecodedCounts>();
  const sum = emptyDecodedCounts();
  for (let from = 0; from < indices.length; from += BUCKETS_PER_READ) {
    let pending = indices.slice(from, from + BUCKETS_PER_READ);
    // A bucket a seal changed while it was read is read again, up to five times.
    for (let attempt = 0; pending.length > 0; attempt++) {
      const reads = await snapshotBuckets(redis, keys, r, pending);
      for (const [t, read] of reads) {
        const counts = emptyDecodedCounts();
        decodeBucket(read, [counts, sum], dicts);
        decoded.set(t, counts);
      }
      pending = pending.filter((t) => !reads.has(t));
      if (pending.length > 0 && attempt >= 5)
        throw new Error(`cube-dump: bucket ${r}:${pending[0]} kept changing while read`);
    }
  }
  // In idx order, as the buckets were asked for.
  const perBucket = new Map(indices.map((t) => [t, decoded.get(t)!]));
  return { perBucket, sum };
}

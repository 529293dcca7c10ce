/**
 * Reads back every counter of an API at one resolution and decodes it into plain counts per
 * dimension: the verification helper of the exactness tests and a debugging aid (CLI, bench).
 * Not a query path: it reads everything: every bucket's sealed sections, the hashes being sealed
 * and the delta hashes (docs/store-v2.md), which together hold each count exactly once. The three
 * are read in one MULTI per bucket, so that a seal running meanwhile cannot show a count twice.
 */
import type { RedisClient } from './connection';
import { OUTCOME_COUNT } from '@va/contracts';
import { DictionaryReader } from './dictionary';
import { apiKeys, cubeOfPartsList, NO_IDENTITY_PART, type KeySpace, type Resolution } from './keys';
import { execPipeline } from './pipeline';
import { decodeSection, NO_IDENTITY, type Section } from './section/codec';

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
  const value = (d: 'k' | 'i' | 's', code36: string): string => {
    const v = dicts.value(d, parseInt(code36, 36));
    if (v === undefined) throw new Error(`cube ${suffix}: code ${code36} not in dictionary ${d}`);
    return v;
  };
  for (const [field, raw] of Object.entries(fields)) {
    const n = Number(raw);
    const cut = field.lastIndexOf(':');
    const o = Number(field.slice(cut + 1));
    const dims = field.slice(0, cut);
    switch (cube) {
      case 't':
        into.total[Number(field)]! += n;
        break;
      case 'k':
        add(into.byKey, value('k', dims), o, n);
        break;
      case 'i':
        add(into.byIdentity, value('i', dims), o, n);
        break;
      case 's':
        add(into.byTagSet, value('s', dims), o, n);
        break;
      case 'f': {
        const [k, s] = dims.split('.') as [string, string];
        const identity = part === NO_IDENTITY_PART || part === undefined ? '' : value('i', part);
        add(into.full, fullKey(value('k', k), value('s', s), identity), o, n);
        break;
      }
      default:
        throw new Error(`unknown cube suffix ${suffix}`);
    }
  }
}

function decodeSectionInto(into: DecodedCounts, section: Section, dicts: DictionaryReader): void {
  const value = (d: 'k' | 'i' | 's', code: number): string => {
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

/**
 * Every bucket of resolution r (from idx:<r>) decoded, and their sum. `buckets` limits the read
 * to some bucket indices.
 */
export async function dumpApiCounts(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  r: Resolution,
  buckets?: readonly number[],
): Promise<{ perBucket: Map<number, DecodedCounts>; sum: DecodedCounts }> {
  const keys = apiKeys(space, apiId);
  const indices = buckets ?? (await redis.zrange(keys.bucketIndex(r), 0, -1)).map(Number);
  const dicts = new DictionaryReader(redis, space, apiId);
  await dicts.load();

  const perBucket = new Map<number, DecodedCounts>();
  const sum = emptyDecodedCounts();
  for (const t of indices) {
    // First the bucket's sets and sections (one MULTI), then, in a second MULTI, every hash they
    // name under both its delta and its sealing name, and the section versions again. A seal
    // starting in between only renames hashes (found under the other name); one finishing in
    // between changes a section version: then the bucket is read again.
    for (let attempt = 0; ; attempt++) {
      const snapshot = redis.multi().smembers(keys.parts(r, t)).smembers(keys.sealingParts(r, t));
      for (const cube of DUMPED_SECTIONS) snapshot.getBuffer(keys.section(r, t, cube));
      const [parts, zparts, ...sections] = (await execPipeline(snapshot)) as [
        string[],
        string[],
        ...(Buffer | null)[],
      ];
      const suffixes = [...new Set([...parts, ...zparts])];
      const pipeline = redis.multi();
      for (const suffix of suffixes) {
        if (cubeOfPartsList(suffix) !== undefined) {
          pipeline
            .lrangeBuffer(keys.cube(r, t, suffix), 0, -1)
            .lrangeBuffer(keys.sealing(r, t, suffix), 0, -1);
        } else pipeline.hgetall(keys.cube(r, t, suffix)).hgetall(keys.sealing(r, t, suffix));
      }
      for (const cube of DUMPED_SECTIONS) pipeline.getrangeBuffer(keys.section(r, t, cube), 4, 11);
      const replies = await execPipeline(pipeline);
      const versionsNow = replies.slice(2 * suffixes.length) as Buffer[];
      const moved = sections.some(
        (bytes, n) => !(bytes?.subarray(4, 12) ?? Buffer.alloc(0)).equals(versionsNow[n]!),
      );
      if (moved && attempt < 5) continue;
      if (moved) throw new Error(`cube-dump: bucket ${r}:${t} kept changing while read`);
      const decoded = emptyDecodedCounts();
      const partSections: Buffer[] = [];
      suffixes.forEach((suffix, n) => {
        if (cubeOfPartsList(suffix) !== undefined) {
          for (const list of [replies[2 * n], replies[2 * n + 1]] as Buffer[][]) partSections.push(...list);
          return;
        }
        for (const hash of [replies[2 * n], replies[2 * n + 1]] as Record<string, string>[]) {
          decodeCube(decoded, suffix, hash, dicts);
          decodeCube(sum, suffix, hash, dicts);
        }
      });
      for (const bytes of [...sections, ...partSections]) {
        if (!bytes) continue;
        const section = decodeSection(bytes);
        decodeSectionInto(decoded, section, dicts);
        decodeSectionInto(sum, section, dicts);
      }
      perBucket.set(t, decoded);
      break;
    }
  }
  return { perBucket, sum };
}

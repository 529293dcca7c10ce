/**
 * Reads back every counter of an API at one resolution and decodes it into plain counts per
 * dimension: the verification helper of the exactness tests and a debugging aid (CLI, bench).
 * Not a query path: it reads everything (SMEMBERS parts + HGETALL of every cube of every bucket).
 */
import type { RedisClient } from './connection';
import { OUTCOME_COUNT } from '@va/contracts';
import { DictionaryReader } from './dictionary';
import { apiKeys, NO_IDENTITY_PART, type KeySpace, type Resolution } from './keys';
import { execPipeline, newPipeline } from './pipeline';

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

  const partsReplies = indices.length
    ? ((await execPipeline(
        indices.reduce((p, t) => p.smembers(keys.parts(r, t)), newPipeline(redis)),
      )) as string[][])
    : [];
  const perBucket = new Map<number, DecodedCounts>();
  const sum = emptyDecodedCounts();
  for (let b = 0; b < indices.length; b++) {
    const t = indices[b]!;
    const suffixes = partsReplies[b] ?? [];
    const pipeline = newPipeline(redis);
    for (const suffix of suffixes) pipeline.hgetall(keys.cube(r, t, suffix));
    const cubes = (await execPipeline(pipeline)) as Record<string, string>[];
    const decoded = emptyDecodedCounts();
    suffixes.forEach((suffix, n) => {
      decodeCube(decoded, suffix, cubes[n]!, dicts);
      decodeCube(sum, suffix, cubes[n]!, dicts);
    });
    perBucket.set(t, decoded);
  }
  return { perBucket, sum };
}

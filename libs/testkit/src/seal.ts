/**
 * Test helper: the two steps of sealing a bucket (docs/store-v2.md "Sealing") done by hand with
 * plain commands, for read-path tests that need sections, sealing hashes and deltas side by side.
 * Each step moves counts atomically as the compactor's scripts do (RENAMEs in one MULTI; the new
 * sections SET and the sealing hashes deleted in one MULTI), so a reader sees every count once at
 * every instant. Not the production sealer: the compactor's (branch storeseal) is.
 */
import type { Redis } from 'ioredis';
import {
  apiKeys,
  decodeSection,
  deriveIdentityKey,
  encodeSection,
  NO_IDENTITY,
  NO_IDENTITY_PART,
  SECTION_CUBES,
  SectionRows,
  type KeySpace,
  type Resolution,
  type SectionCube,
} from '@va/store';

export interface BucketAt {
  space: KeySpace;
  apiId: string;
  res: Resolution;
  index: number;
}

/**
 * Step 1: renames the bucket's delta hashes and its parts set to their `z:` names (nothing when a
 * seal is already in progress or there is no delta). Returns whether a seal is now in progress.
 */
export async function beginSealByHand(redis: Redis, at: BucketAt): Promise<boolean> {
  const keys = apiKeys(at.space, at.apiId);
  const zparts = keys.sealingParts(at.res, at.index);
  if ((await redis.exists(zparts)) === 1) return true;
  const parts = keys.parts(at.res, at.index);
  await redis.watch(parts);
  const suffixes = await redis.smembers(parts);
  if (suffixes.length === 0) {
    await redis.unwatch();
    return false;
  }
  const multi = redis.multi();
  for (const suffix of suffixes) {
    multi.rename(keys.cube(at.res, at.index, suffix), keys.sealing(at.res, at.index, suffix));
  }
  multi.rename(parts, zparts);
  // A writer adding a new part in between aborts this (WATCH): try again.
  if ((await multi.exec()) === null) return beginSealByHand(redis, at);
  return true;
}

/** The rows of one delta hash (suffix as in parts) added into the builders of its cube. */
function addHash(rows: Map<SectionCube, SectionRows>, suffix: string, hash: Record<string, string>): void {
  const [cube, part] = suffix.split(':') as [SectionCube, string | undefined];
  const builder = rows.get(cube)!;
  for (const [field, value] of Object.entries(hash)) {
    const n = Number(value);
    const colon = field.lastIndexOf(':');
    const outcome = Number(field.slice(colon + 1));
    if (cube === 't') builder.add([], Number(field), n);
    else if (cube === 'f') {
      const identity = part === NO_IDENTITY_PART ? NO_IDENTITY : parseInt(part!, 36);
      const [key, set] = field.slice(0, colon).split('.');
      builder.add([identity, parseInt(key!, 36), parseInt(set!, 36)], outcome, n);
    } else builder.add([parseInt(field.slice(0, colon), 36)], outcome, n);
  }
}

/**
 * Step 2: adds the sealing hashes to the bucket's sections (x derived from f), writes them with a
 * new version (INCR of the API's seq) and deletes the sealing hashes, in one MULTI. Nothing
 * without a seal in progress.
 */
export async function commitSealByHand(redis: Redis, at: BucketAt): Promise<void> {
  const keys = apiKeys(at.space, at.apiId);
  const zparts = keys.sealingParts(at.res, at.index);
  const suffixes = await redis.smembers(zparts);
  if (suffixes.length === 0) return;
  const rows = new Map(SECTION_CUBES.map((cube) => [cube, new SectionRows(cube)] as const));
  for (const cube of SECTION_CUBES) {
    if (cube === 'x') continue;
    const bytes = await redis.getBuffer(keys.section(at.res, at.index, cube));
    if (bytes) rows.get(cube)!.addSection(decodeSection(bytes));
  }
  const pipeline = redis.pipeline();
  for (const suffix of suffixes) pipeline.hgetall(keys.sealing(at.res, at.index, suffix));
  const hashes = (await pipeline.exec()) ?? [];
  suffixes.forEach((suffix, n) => {
    const [err, hash] = hashes[n]!;
    if (err) throw err;
    addHash(rows, suffix, hash as Record<string, string>);
  });
  const version = await redis.incr(keys.sealSequence);
  const multi = redis.multi();
  for (const cube of SECTION_CUBES) {
    if (cube === 'x') continue;
    const section = rows.get(cube)!.toSection(version);
    if (section.rows > 0) multi.set(keys.section(at.res, at.index, cube), encodeSection(section));
    if (cube === 'f' && section.rows > 0) {
      multi.set(keys.section(at.res, at.index, 'x'), encodeSection(deriveIdentityKey(section, version)));
    }
  }
  for (const suffix of suffixes) multi.del(keys.sealing(at.res, at.index, suffix));
  multi.del(zparts);
  await multi.exec();
}

export async function sealByHand(redis: Redis, at: BucketAt): Promise<void> {
  if (await beginSealByHand(redis, at)) await commitSealByHand(redis, at);
}

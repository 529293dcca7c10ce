/**
 * Test helper: the steps of sealing a bucket (docs/store-v2.md "Sealing") one at a time, with the
 * compactor's own scripts, for read-path tests that need sections, sealing hashes and deltas side by
 * side: beginSeal alone leaves a seal in progress (the delta renamed to its z: names); sealBucket
 * (../seal.ts) begins, or resumes a seal in progress, and commits it.
 */
import type { Retention } from '@va/core';
import type { RedisClient } from '../connection';
import { apiKeys, type KeySpace, type Resolution } from '../keys';
import { sealBucket } from '../seal';
import { beginSeal } from '../scripts/seal-scripts';

export interface BucketAt {
  space: KeySpace;
  apiId: string;
  res: Resolution;
  index: number;
}

/**
 * beginSeal-5.lua alone: the bucket's delta moves to its z: names (or a seal in progress stays as
 * it is). Returns whether a seal is in progress afterwards.
 */
export async function beginSealOnly(redis: RedisClient, at: BucketAt): Promise<boolean> {
  const begun = await beginSeal(redis, { keys: apiKeys(at.space, at.apiId), res: at.res, index: at.index });
  return begun.kind === 'seal';
}

/** A whole seal (or the rest of one in progress), as the compactor runs it. */
export async function sealNow(
  redis: RedisClient,
  at: BucketAt,
  options: { now: number; retention: Retention },
): Promise<void> {
  await sealBucket(redis, at.space, at.apiId, at.res, at.index, options);
}

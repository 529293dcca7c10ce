/**
 * Open hours sealed while they are written (docs/store-v2.md "Open hours sealed"): an hour after the compactor's
 * closed bound takes live writes, so it is never sealed for compaction; but a busy one holds a delta of hundreds
 * of hashes that every query ending now reads whole (the medium tenant's tag cube after a burst: ~200 hashes, 0.9 ms
 * of Redis per request). Sealing it now and then makes it a cached section plus the delta written since. The same
 * holds for the edges of billing zones in the current UTC day (docs/design.md "Billing zones"): live events write them
 * until their day is closed, and a query of the local day ending now reads them.
 *
 * The policy (`openHoursToSeal`) is pure; `readOpenHours` is the Redis adapter that gathers its inputs in one round
 * trip. Sealing an open hour is the sealing of any bucket: the protocol (beginSeal, commitSeal) never assumed
 * that no write comes after it, late events into sealed hours already do.
 */
import type { RedisClient } from './connection';
import type { EdgeResolution } from '@va/core';
import { apiKeys, partsListSuffix, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { SECTION_VERSION_OFFSET, versionOfBytes } from './section/codec';

export interface OpenHourPolicy {
  /** Seal an open hour whose delta holds at least this many hashes and parts (OpenHour.hashes)... */
  minHashes: number;
  /** ...and whose last seal (its t section's version, µs since the epoch) is at least this old. */
  everyMs: number;
}

/** An open hour, or an edge of a billing zone whose UTC day is not closed yet. */
export interface OpenBucket {
  res: 'h' | EdgeResolution;
  index: number;
}

export interface OpenHour extends OpenBucket {
  /** What a read of its delta reads: its hashes and lists (its parts set), each part of an f shard list as one. */
  hashes: number;
  /** When it was sealed last (its t section's version / 1000), null when never. */
  sealedAtMs: number | null;
}

/** The open buckets to seal now, in their order in `hours`. */
export function openHoursToSeal(
  hours: readonly OpenHour[],
  now: number,
  policy: OpenHourPolicy,
): OpenBucket[] {
  return hours
    .filter(
      (h) => h.hashes >= policy.minHashes && (h.sealedAtMs === null || now - h.sealedAtMs >= policy.everyMs),
    )
    .map(({ res, index }) => ({ res, index }));
}

/**
 * For each of `buckets`: what a read of its delta reads, its hashes and the parts of its f lists per identity
 * shard (open-f-parts.ts: an API with few hashes but busy batches would otherwise pile up parts all hour long),
 * and the version of its t section. One round trip, and one more for the lists' lengths when it has such lists.
 */
export async function readOpenHours(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  buckets: readonly OpenBucket[],
): Promise<OpenHour[]> {
  if (buckets.length === 0) return [];
  const keys = apiKeys(space, apiId);
  const pipeline = newPipeline(redis);
  for (const { res, index } of buckets) {
    pipeline.scard(keys.parts(res, index));
    pipeline.getrangeBuffer(
      keys.section(res, index, 't'),
      SECTION_VERSION_OFFSET,
      SECTION_VERSION_OFFSET + 7,
    );
    // One call walks the whole set (COUNT past its size): the policy's input, not a read's, so a list missed
    // while the set rehashes only delays a seal.
    pipeline.sscan(keys.parts(res, index), 0, 'MATCH', SHARD_LISTS, 'COUNT', SCAN_COUNT);
  }
  const replies = await execPipeline(pipeline);
  const lists = buckets.map((_, n) => (replies[3 * n + 2] as [string, string[]])[1]);
  const lengths = lists.some((names) => names.length > 0)
    ? await execPipeline(
        buckets.reduce(
          (p, { res, index }, n) => lists[n]!.reduce((q, suffix) => q.llen(keys.cube(res, index, suffix)), p),
          newPipeline(redis),
        ),
      )
    : [];
  let at = 0;
  return buckets.map(({ res, index }, n) => {
    const version = replies[3 * n + 1] as Buffer;
    let parts = 0;
    for (let l = 0; l < lists[n]!.length; l++) parts += Number(lengths[at++]);
    return {
      res,
      index,
      hashes: Number(replies[3 * n]) - lists[n]!.length + parts,
      sealedAtMs: version.length === 0 ? null : versionOfBytes(version) / 1000,
    };
  });
}

/** The parts set members of an open hour's f lists per identity shard (keys.ts partsListSuffix). */
const SHARD_LISTS = `${partsListSuffix('f', '')}*`;
const SCAN_COUNT = 1_000_000;

/**
 * Open hours sealed while they are written (docs/store-v2.md "Open hours sealed"): an hour after the compactor's
 * closed bound takes live writes, so it is never sealed for compaction; but a busy one holds a delta of hundreds
 * of hashes that every query ending now reads whole (the medium tenant's tag cube after a burst: ~200 hashes, 0.9 ms
 * of Redis per request). Sealing it now and then makes it a cached section plus the delta written since.
 *
 * The policy (`openHoursToSeal`) is pure; `readOpenHours` is the Redis adapter that gathers its inputs in one round
 * trip. Sealing an open hour is the sealing of any bucket: the protocol (beginSeal, commitSeal) never assumed
 * that no write comes after it, late events into sealed hours already do.
 */
import type { RedisClient } from './connection';
import { apiKeys, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { SECTION_VERSION_OFFSET, versionOfBytes } from './section/codec';

export interface OpenHourPolicy {
  /** Seal an open hour whose delta lists at least this many hashes and lists (its parts set)... */
  minHashes: number;
  /** ...and whose last seal (its t section's version, µs since the epoch) is at least this old. */
  everyMs: number;
}

export interface OpenHour {
  index: number;
  /** Members of its parts set: its delta's hashes and lists. */
  hashes: number;
  /** When it was sealed last (its t section's version / 1000), null when never. */
  sealedAtMs: number | null;
}

/** The open hours to seal now, oldest first. */
export function openHoursToSeal(hours: readonly OpenHour[], now: number, policy: OpenHourPolicy): number[] {
  return hours
    .filter(
      (h) => h.hashes >= policy.minHashes && (h.sealedAtMs === null || now - h.sealedAtMs >= policy.everyMs),
    )
    .map((h) => h.index)
    .sort((a, b) => a - b);
}

/** For each hour of `indexes`: the size of its parts set and the version of its t section, in one round trip. */
export async function readOpenHours(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  indexes: readonly number[],
): Promise<OpenHour[]> {
  if (indexes.length === 0) return [];
  const keys = apiKeys(space, apiId);
  const pipeline = newPipeline(redis);
  for (const index of indexes) {
    pipeline.scard(keys.parts('h', index));
    pipeline.getrangeBuffer(
      keys.section('h', index, 't'),
      SECTION_VERSION_OFFSET,
      SECTION_VERSION_OFFSET + 7,
    );
  }
  const replies = await execPipeline(pipeline);
  return indexes.map((index, n) => {
    const version = replies[2 * n + 1] as Buffer;
    return {
      index,
      hashes: Number(replies[2 * n]),
      sealedAtMs: version.length === 0 ? null : versionOfBytes(version) / 1000,
    };
  });
}

/**
 * A read's cells as sorted JSON lines, for tests that compare a read through the section cache with a fresh one
 * (readCounts, then the dictionaries' names): equal lines, equal answers.
 */
import type { BucketRead } from '@va/core';
import type { RedisClient } from '../connection';
import type { KeySpace } from '../keys';
import { decodeCells, readCounts, type CubeQuery } from '../read';
import { ReadDictionaries } from '../read-dictionaries';
import type { SectionCache } from '../section-cache';

export async function readCellLines(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  q: CubeQuery,
  reads: readonly BucketRead[],
  cmp: number | null,
  cache?: SectionCache,
): Promise<string[]> {
  const read = await readCounts(redis, space, apiId, q, reads, cmp, cache ? { sections: cache } : {});
  if (!read.ok) throw new Error('cmp moved');
  const cells = await decodeCells(read.counts, new ReadDictionaries(redis, space, apiId));
  return cells.map((c) => JSON.stringify(c)).sort();
}

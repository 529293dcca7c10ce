/**
 * Deleting a whole counter generation (the old one after a rebuild switched, or the new one after
 * an abort): SCAN for its keys and UNLINK them in batches, so that Redis is never blocked for long
 * (UNLINK frees memory in a background thread). Refuses the current generation.
 */
import type { Redis } from 'ioredis';
import { generationRoot } from './keys';
import { readGeneration } from './watermark';

/** SCAN MATCH treats * ? [ ] \ as glob syntax: a key prefix must match itself only. */
export const escapeGlob = (s: string): string => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

export interface DeleteGenerationOptions {
  /** Keys per UNLINK (and SCAN COUNT hint). */
  batch?: number;
  onProgress?: (deleted: number) => void;
}

export async function deleteGeneration(
  redis: Redis,
  prefix: string,
  generation: number,
  options: DeleteGenerationOptions = {},
): Promise<number> {
  if ((await readGeneration(redis, prefix)) === generation) {
    throw new Error(`refusing to delete generation ${generation}: it is the current one`);
  }
  const batch = options.batch ?? 1000;
  const match = `${escapeGlob(generationRoot(prefix, generation))}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', batch);
    cursor = next;
    if (keys.length > 0) {
      deleted += await redis.unlink(...keys);
      options.onProgress?.(deleted);
    }
  } while (cursor !== '0');
  return deleted;
}

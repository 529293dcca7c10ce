/**
 * Deleting a whole counter generation (the old one after a rebuild switched, or the new one after
 * an abort): SCAN for its keys and UNLINK them in batches, so that Redis is never blocked for long
 * (UNLINK frees memory in a background thread). Refuses the current generation: a query keeps its
 * answer when `<p>:gen` still names, after its reads, the generation it read (services/query/src/
 * verifications/one-generation.ts), which is sound only because no current generation is deleted.
 */
import { escapeGlob, scanKeys, unlinkKeys, type RedisClient } from './connection';
import { generationRoot } from './keys';
import { readGeneration } from './watermark';

export interface DeleteGenerationOptions {
  /** Keys per UNLINK (and SCAN COUNT hint). */
  batch?: number;
  onProgress?: (deleted: number) => void;
}

export async function deleteGeneration(
  redis: RedisClient,
  prefix: string,
  generation: number,
  options: DeleteGenerationOptions = {},
): Promise<number> {
  if ((await readGeneration(redis, prefix)) === generation) {
    throw new Error(`refusing to delete generation ${generation}: it is the current one`);
  }
  const batch = options.batch ?? 1000;
  const match = `${escapeGlob(generationRoot(prefix, generation))}*`;
  let deleted = 0;
  // On a cluster every master holds a share of the generation's slots: scanKeys walks them all.
  for await (const keys of scanKeys(redis, match, batch)) {
    deleted += await unlinkKeys(redis, keys);
    options.onProgress?.(deleted);
  }
  return deleted;
}

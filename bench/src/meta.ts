/**
 * What the bench remembers about a loaded data set, in one hash beside it (`<prefix>:bench-meta`,
 * a name no service uses): its spec (with the anchor time the event times are relative to), the
 * Redis memory before it was loaded, and whether loading finished. `--skip-produce` reuses a data
 * set only when it is complete.
 */
import type { Redis } from 'ioredis';
import type { DataSetSpec } from './dataset';

export interface DataSetMeta {
  spec: DataSetSpec;
  /** INFO used_memory before the data set was produced. */
  baselineMemory: number;
  /** Unix ms when ingest and compaction finished; absent while loading. */
  loadedAt?: number;
}

const metaKey = (prefix: string) => `${prefix}:bench-meta`;

export async function readMeta(redis: Redis, prefix: string): Promise<DataSetMeta | null> {
  const raw = await redis.get(metaKey(prefix));
  return raw === null ? null : (JSON.parse(raw) as DataSetMeta);
}

export async function writeMeta(redis: Redis, prefix: string, meta: DataSetMeta): Promise<void> {
  await redis.set(metaKey(prefix), JSON.stringify(meta));
}

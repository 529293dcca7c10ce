/**
 * Cutting one API's increments of a batch into bounded chunks (pure; docs/store-v2.md "Applies
 * staged in chunks"). One applyApiBatch call blocks Redis while it runs, ~2-3 µs per hash field: a
 * busy API's live batch of ~10,000 events is ~37,000 fields, 20 ms and more. Above the bound the
 * call keeps what is cheap (section parts, the day and month rollups' fields) and stages the hour
 * buckets' fields as chunks of at most `maxFields` fields each, which applyStagedChunk-5.lua then
 * applies one per call. Each field is still written once per batch: unlike cutting the batch into
 * offset ranges (classify.ts slices), nothing merges less.
 *
 * The rollups stay in the main call: every write to a day writes its month in the same script
 * (month-days.ts relies on it), and only events of hours already compacted write them (few).
 */
import type { ApiIncrements, BucketIncrements } from './aggregate';

export interface Staged {
  /** What the main call writes itself: every bucket's section parts, the rollups' fields. */
  buckets: BucketIncrements[];
  /** The hour buckets' fields, in chunks of applyStagedChunk-5.lua's text layout. */
  chunks: string[];
}

/** Hash fields the increments write (each one HINCRBY). */
export function fieldCount(inc: Pick<ApiIncrements, 'buckets'>): number {
  let n = 0;
  for (const b of inc.buckets) for (const fields of b.cubes.values()) n += fields.size;
  return n;
}

/** The increments as one call when they hold at most `maxFields` fields, else staged in chunks. */
export function stageIncrements(inc: Pick<ApiIncrements, 'buckets'>, maxFields: number): Staged {
  if (fieldCount(inc) <= maxFields) return { buckets: inc.buckets, chunks: [] };
  const buckets: BucketIncrements[] = [];
  const writer = new ChunkWriter(maxFields);
  for (const b of inc.buckets) {
    if (b.r !== 'h' || b.cubes.size === 0) {
      buckets.push(b);
      continue;
    }
    if (b.parts.size > 0) buckets.push({ ...b, cubes: new Map() });
    for (const [suffix, fields] of b.cubes) {
      for (const [field, n] of fields) writer.add(b, suffix, field, n);
    }
  }
  writer.close();
  return { buckets, chunks: writer.chunks };
}

/**
 * Fields in the order given, cut into chunks of `maxFields`: a bucket or cube cut by the bound is
 * continued as an entry of its own in the next chunk.
 */
class ChunkWriter {
  readonly chunks: string[] = [];
  private entries: { bucket: BucketIncrements; cubes: { suffix: string; pairs: string[] }[] }[] = [];
  private fields = 0;

  constructor(private readonly maxFields: number) {}

  add(bucket: BucketIncrements, suffix: string, field: string, n: number): void {
    let entry = this.entries.at(-1);
    if (entry?.bucket !== bucket) this.entries.push((entry = { bucket, cubes: [] }));
    let cube = entry.cubes.at(-1);
    if (cube?.suffix !== suffix) entry.cubes.push((cube = { suffix, pairs: [] }));
    cube.pairs.push(field, String(n));
    if (++this.fields >= this.maxFields) this.close();
  }

  close(): void {
    if (this.fields === 0) return;
    const tokens = [String(this.entries.length)];
    for (const { bucket, cubes } of this.entries) {
      tokens.push(bucket.r, String(bucket.t), String(bucket.expireAt), String(cubes.length));
      for (const { suffix, pairs } of cubes) {
        tokens.push(suffix, String(pairs.length / 2));
        for (const token of pairs) tokens.push(token);
      }
    }
    this.chunks.push(tokens.join(' '));
    this.entries = [];
    this.fields = 0;
  }
}

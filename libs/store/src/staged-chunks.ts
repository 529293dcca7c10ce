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
  const chunks: string[] = [];
  let chunk: string[] = [];
  let bucketsInChunk = 0;
  let fieldsInChunk = 0;
  const close = () => {
    if (bucketsInChunk > 0) chunks.push(`${bucketsInChunk} ${chunk.join(' ')}`);
    chunk = [];
    bucketsInChunk = 0;
    fieldsInChunk = 0;
  };
  for (const b of inc.buckets) {
    if (b.r !== 'h' || b.cubes.size === 0) {
      buckets.push(b);
      continue;
    }
    if (b.parts.size > 0) buckets.push({ ...b, cubes: new Map() });
    // The bucket's cubes, cut wherever the chunk is full: each piece is a bucket entry of its own.
    let entry: string[] = [];
    let cubes = 0;
    const flushEntry = () => {
      if (cubes === 0) return;
      chunk.push(b.r, String(b.t), String(b.expireAt), String(cubes), ...entry);
      bucketsInChunk++;
      entry = [];
      cubes = 0;
    };
    for (const [suffix, fields] of b.cubes) {
      let piece: string[] = [];
      const flushPiece = () => {
        if (piece.length === 0) return;
        entry.push(suffix, String(piece.length / 2), ...piece);
        cubes++;
        piece = [];
      };
      for (const [field, n] of fields) {
        piece.push(field, String(n));
        if (++fieldsInChunk >= maxFields) {
          flushPiece();
          flushEntry();
          close();
        }
      }
      flushPiece();
    }
    flushEntry();
  }
  close();
  return { buckets, chunks };
}

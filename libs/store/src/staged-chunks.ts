/**
 * Cutting one API's increments of a batch into bounded chunks (pure; docs/store-v2.md "Applies
 * staged in chunks"). One applyApiBatch call blocks Redis while it runs: a busy API's live batch
 * of ~10,000 events is ~37,000 hash fields, tens of ms, and so is a catch-up batch appending the
 * section parts of hundreds of closed hours. Above the bound the call keeps the day
 * and month rollups and stages the hour buckets (their fields and their section parts) as chunks
 * of at most `maxWrites` writes each (after those that fit in the call itself), which
 * applyStagedChunk-5.lua then applies one per call. Each
 * field and part is still written once per batch: unlike cutting the batch into offset ranges
 * (classify.ts slices), nothing merges less.
 *
 * The rollups stay in the main call: every write to a day writes its month in the same script
 * (month-days.ts relies on it), and only events of hours already compacted write them (few). Minute
 * buckets (live events: as many fields as their hours) are staged like hour buckets.
 */
import type { ApiIncrements, BucketIncrements } from './aggregate';

/**
 * The work of a script call in writes, about one Redis command each (~3 µs inside Lua,
 * docs/benchmarks-history.md "Bounding the catch-up's calls"): a hash field is one HINCRBY, a cube
 * its expiry, a bucket its two index entries and its parts set with its expiry, a section part its
 * RPUSH and expiry plus the copy of its bytes (about one write per KiB).
 */
export const WRITES = { field: 1, cube: 1, bucket: 4, part: 2, partBytes: 1024 } as const;

const partWrites = (section: Buffer) => WRITES.part + Math.floor(section.length / WRITES.partBytes);

export interface Staged {
  /** What the main call writes itself: the rollups' buckets and the first hour buckets that fit. */
  buckets: BucketIncrements[];
  /** The hour buckets, in chunks of applyStagedChunk-5.lua's layout. */
  chunks: (string | Buffer)[];
}

const isRollup = (b: BucketIncrements): boolean => b.r === 'd' || b.r === 'm';

function bucketWrites(b: BucketIncrements): number {
  let n = WRITES.bucket;
  for (const fields of b.cubes.values()) n += WRITES.cube + fields.size * WRITES.field;
  for (const section of b.parts.values()) n += partWrites(section);
  return n;
}

/** The writes of a call that applies these buckets. */
export function writeCount(inc: Pick<ApiIncrements, 'buckets'>): number {
  let n = 0;
  for (const b of inc.buckets) n += bucketWrites(b);
  return n;
}

/**
 * The increments as one call when they are at most `maxWrites` writes, besides the `reserved` writes
 * the call makes anyway (the alert counters'). Else the call keeps the rollups' buckets and, in order,
 * the hour buckets that still fit (a catch-up batch just over the bound stages only its last buckets:
 * one chunk call more, not all of it), and the other hour buckets are staged in chunks of
 * `maxWrites`: the reserved writes shrink the call's room, never the chunks (a call whose alert writes
 * fill the bound would otherwise stage one field per chunk, a script call per field).
 */
export function stageIncrements(
  inc: Pick<ApiIncrements, 'buckets'>,
  maxWrites: number,
  reserved = 0,
): Staged {
  if (writeCount(inc) + reserved <= maxWrites) return { buckets: inc.buckets, chunks: [] };
  const rollups = inc.buckets.filter(isRollup);
  const buckets = [...rollups];
  let room = maxWrites - reserved - writeCount({ buckets: rollups });
  const writer = new ChunkWriter(maxWrites);
  // Once an hour bucket does not fit, it and every later one are staged (the call keeps a prefix).
  let staging = false;
  for (const b of inc.buckets) {
    if (isRollup(b)) continue;
    const writes = bucketWrites(b);
    staging ||= writes > room;
    if (!staging) {
      buckets.push(b);
      room -= writes;
      continue;
    }
    for (const [suffix, fields] of b.cubes) {
      for (const [field, n] of fields) writer.field(b, suffix, field, n);
    }
    for (const [suffix, section] of b.parts) writer.part(b, suffix, section);
  }
  writer.close();
  return { buckets, chunks: writer.chunks };
}

interface Entry {
  bucket: BucketIncrements;
  cubes: { suffix: string; pairs: string[] }[];
  parts: { suffix: string; section: Buffer }[];
}

/**
 * Fields and parts in the order given, cut into chunks of about `maxWrites` writes: a bucket or cube
 * cut by the bound is continued as an entry of its own in the next chunk. A single part larger than
 * the bound (it cannot be cut) is a chunk of its own.
 *
 * Layout: text tokens separated by one space: the number of entries, then per entry r, t,
 * expireAt, the number of cubes C, per cube its suffix, the number of fields F and F pairs field,
 * increment, then the number of parts L and per part its suffix and byte length. When a chunk holds
 * parts, a newline follows the tokens and then the parts' bytes, in the order of the tokens.
 */
class ChunkWriter {
  readonly chunks: (string | Buffer)[] = [];
  private entries: Entry[] = [];
  private writes = 0;

  constructor(private readonly maxWrites: number) {}

  field(bucket: BucketIncrements, suffix: string, field: string, n: number): void {
    const entry = this.entry(bucket);
    let cube = entry.cubes.at(-1);
    if (cube?.suffix !== suffix) {
      entry.cubes.push((cube = { suffix, pairs: [] }));
      this.writes += WRITES.cube;
    }
    cube.pairs.push(field, String(n));
    this.add(WRITES.field);
  }

  part(bucket: BucketIncrements, suffix: string, section: Buffer): void {
    const writes = partWrites(section);
    if (this.writes > 0 && this.writes + writes > this.maxWrites) this.close();
    this.entry(bucket).parts.push({ suffix, section });
    this.add(writes);
  }

  close(): void {
    if (this.entries.length === 0) return;
    const tokens = [String(this.entries.length)];
    const sections: Buffer[] = [];
    for (const { bucket, cubes, parts } of this.entries) {
      tokens.push(bucket.r, String(bucket.t), String(bucket.expireAt), String(cubes.length));
      for (const { suffix, pairs } of cubes) {
        tokens.push(suffix, String(pairs.length / 2));
        for (const token of pairs) tokens.push(token);
      }
      tokens.push(String(parts.length));
      for (const { suffix, section } of parts) {
        tokens.push(suffix, String(section.length));
        sections.push(section);
      }
    }
    const text = tokens.join(' ');
    this.chunks.push(sections.length === 0 ? text : Buffer.concat([Buffer.from(`${text}\n`), ...sections]));
    this.entries = [];
    this.writes = 0;
  }

  private entry(bucket: BucketIncrements): Entry {
    let entry = this.entries.at(-1);
    if (entry?.bucket !== bucket) {
      this.entries.push((entry = { bucket, cubes: [], parts: [] }));
      this.writes += WRITES.bucket;
    }
    return entry;
  }

  private add(writes: number): void {
    this.writes += writes;
    if (this.writes >= this.maxWrites) this.close();
  }
}

/**
 * The layout of a staged chunk (applyStagedChunk-5.lua's header; docs/store-v2.md "Applies staged in chunks"):
 * what staged-chunks.ts decided to stage, cut into chunks of at most `maxWrites` writes (staged-chunks.ts WRITES).
 */
import type { BucketIncrements } from './aggregate';
import type { AlertCounterIncrements, AlertIncrements } from './alert-detection';

/** The writes of a section part: its RPUSH and expiry, and the copy of its bytes. */
export const partWrites = (section: Buffer, writes: { part: number; partBytes: number }): number =>
  writes.part + Math.floor(section.length / writes.partBytes);

/** What each kind of write costs (staged-chunks.ts WRITES). */
export interface WriteCosts {
  field: number;
  cube: number;
  bucket: number;
  part: number;
  partBytes: number;
}

interface BucketEntry {
  bucket: BucketIncrements;
  cubes: { suffix: string; pairs: string[] }[];
  parts: { suffix: string; section: Buffer }[];
}

interface CounterEntry {
  counter: AlertCounterIncrements;
  members: { member: Buffer; n: number }[];
}

/**
 * Fields, parts and alert members in the order given, cut into chunks of at most `maxWrites` writes: a bucket,
 * cube or counter cut by the bound is continued as an entry of its own in the next chunk (which pays its
 * overhead again). A single part larger than the bound (it cannot be cut) is a chunk of its own.
 *
 * Layout: text tokens separated by one space: the number of entries, then per entry r, t,
 * expireAt, the number of cubes C, per cube its suffix, the number of fields F and F pairs field,
 * increment, then the number of parts L and per part its suffix and byte length. When the chunk holds alert
 * members: the number of counters A, the rules version, the batch's clock, then per counter counterId,
 * period, periodStart, expireAt, the number of levels V and the V levels, the number of members M and M
 * pairs (the member's length in bytes, increment). When a chunk holds parts or members, a newline follows
 * the tokens and then the parts' bytes and the members' bytes, in the order of the tokens.
 */
export class ChunkWriter {
  readonly chunks: (string | Buffer)[] = [];
  private entries: BucketEntry[] = [];
  private counters: CounterEntry[] = [];
  private writes = 0;

  constructor(
    private readonly maxWrites: number,
    private readonly costs: WriteCosts,
    /** The rules version and clock of the batch's alert increments (needed once a member is staged). */
    private readonly alerts?: Pick<AlertIncrements, 'rulesVersion' | 'now'>,
  ) {}

  field(bucket: BucketIncrements, suffix: string, field: string, n: number): void {
    const last = this.entries.at(-1);
    const sameBucket = last?.bucket === bucket;
    const sameCube = sameBucket && last.cubes.at(-1)?.suffix === suffix;
    this.make((sameBucket ? 0 : this.costs.bucket) + (sameCube ? 0 : this.costs.cube) + this.costs.field);
    const entry = this.entry(bucket);
    let cube = entry.cubes.at(-1);
    if (cube?.suffix !== suffix) {
      entry.cubes.push((cube = { suffix, pairs: [] }));
      this.writes += this.costs.cube;
    }
    cube.pairs.push(field, String(n));
    this.writes += this.costs.field;
  }

  part(bucket: BucketIncrements, suffix: string, section: Buffer): void {
    const writes = partWrites(section, this.costs);
    this.make((this.entries.at(-1)?.bucket === bucket ? 0 : this.costs.bucket) + writes);
    this.entry(bucket).parts.push({ suffix, section });
    this.writes += writes;
  }

  /** One member's increment of an alert counter: a HINCRBY, and the counter's two expiries per chunk. */
  member(counter: AlertCounterIncrements, member: string, n: number): void {
    if (!this.alerts) throw new Error('ChunkWriter: alert members need the batch’s rules version and clock');
    const sameCounter = this.counters.at(-1)?.counter === counter;
    this.make((sameCounter ? 0 : 2 * this.costs.cube) + this.costs.field);
    let entry = this.counters.at(-1);
    if (entry?.counter !== counter) {
      this.counters.push((entry = { counter, members: [] }));
      this.writes += 2 * this.costs.cube;
    }
    entry.members.push({ member: Buffer.from(member), n });
    this.writes += this.costs.field;
  }

  close(): void {
    if (this.entries.length === 0 && this.counters.length === 0) return;
    const tokens = [String(this.entries.length)];
    const tail: Buffer[] = [];
    for (const { bucket, cubes, parts } of this.entries) {
      tokens.push(bucket.r, String(bucket.t), String(bucket.expireAt), String(cubes.length));
      for (const { suffix, pairs } of cubes) {
        tokens.push(suffix, String(pairs.length / 2));
        for (const token of pairs) tokens.push(token);
      }
      tokens.push(String(parts.length));
      for (const { suffix, section } of parts) {
        tokens.push(suffix, String(section.length));
        tail.push(section);
      }
    }
    if (this.counters.length > 0) {
      tokens.push(String(this.counters.length), String(this.alerts!.rulesVersion), String(this.alerts!.now));
      for (const { counter: c, members } of this.counters) {
        tokens.push(c.counterId, c.period, String(c.periodStart), String(c.expireAt));
        tokens.push(String(c.levels.length), ...c.levels.map(String), String(members.length));
        for (const { member, n } of members) {
          tokens.push(String(member.length), String(n));
          tail.push(member);
        }
      }
    }
    const text = tokens.join(' ');
    this.chunks.push(tail.length === 0 ? text : Buffer.concat([Buffer.from(`${text}\n`), ...tail]));
    this.entries = [];
    this.counters = [];
    this.writes = 0;
  }

  /** Room for `writes` more: closes the chunk first when they would take it over the bound (never an empty one). */
  private make(writes: number): void {
    if (this.writes > 0 && this.writes + writes > this.maxWrites) this.close();
  }

  private entry(bucket: BucketIncrements): BucketEntry {
    let entry = this.entries.at(-1);
    if (entry?.bucket !== bucket) {
      this.entries.push((entry = { bucket, cubes: [], parts: [] }));
      this.writes += this.costs.bucket;
    }
    return entry;
  }
}

/**
 * Cutting one API's increments of a batch into bounded chunks (pure; docs/store-v2.md "Applies
 * staged in chunks"). One applyApiBatch call blocks Redis while it runs: a busy API's live batch
 * of ~10,000 events is ~37,000 hash fields, tens of ms, and so is a catch-up batch appending the
 * section parts of hundreds of closed hours, or ~10,000 alert members (docs/alerts.md "Detection").
 * Above the bound the call keeps the day and month rollups, the alert members and then the hour
 * buckets that still fit, and stages the others (hour buckets' fields and section parts, alert
 * members) as chunks of at most `maxWrites` writes each (chunk-writer.ts), which
 * applyStagedChunk-5.lua then applies one per call. Each
 * field, part and member is still written once per batch: unlike cutting the batch into offset ranges
 * (classify.ts slices), nothing merges less.
 *
 * The rollups stay in the main call: every write to a day writes its month in the same script
 * (rollup-children.ts relies on it), and only events of hours already compacted write them (few).
 * Such an hour's own bucket may be staged, and so written after its day: rollup-children.ts records
 * a day's hours only while the stage is empty. Minute buckets (live events: as many fields as their
 * hours) are staged like hour buckets.
 */
import type { ApiIncrements, BucketIncrements } from './aggregate';
import type { AlertCounterIncrements, AlertIncrements } from './alert-detection';
import { ChunkWriter, partWrites } from './chunk-writer';

/**
 * The work of a script call in writes, about one Redis command each (~3 µs inside Lua,
 * docs/benchmarks-history.md "Bounding the catch-up's calls"): a hash field is one HINCRBY, a cube
 * its expiry, a bucket its two index entries and its parts set with its expiry, a section part its
 * RPUSH and expiry plus the copy of its bytes (about one write per KiB).
 */
export const WRITES = { field: 1, cube: 1, bucket: 4, part: 2, partBytes: 1024 } as const;

export interface Staged {
  /** What the main call writes itself: the rollups' buckets and the first hour buckets that fit. */
  buckets: BucketIncrements[];
  /** The alert increments the main call writes itself (absent: the batch has none). */
  alerts?: AlertIncrements;
  /** The other hour buckets and alert members, in chunks of applyStagedChunk-5.lua's layout. */
  chunks: (string | Buffer)[];
}

/** A counter's writes: its members' HINCRBY and its two expiries (the counter's and its recorded set's). */
const counterWrites = (c: AlertCounterIncrements) => 2 * WRITES.cube + c.members.size * WRITES.field;

/** The writes the alert counters add to a call (crossings are rare: at most one per level, member and period). */
export function alertWrites(alerts: AlertIncrements | undefined): number {
  let n = 0;
  for (const c of alerts?.counters ?? []) n += counterWrites(c);
  return n;
}

const isRollup = (b: BucketIncrements): boolean => b.r === 'd' || b.r === 'm';

function bucketWrites(b: BucketIncrements): number {
  let n = WRITES.bucket;
  for (const fields of b.cubes.values()) n += WRITES.cube + fields.size * WRITES.field;
  for (const section of b.parts.values()) n += partWrites(section, WRITES);
  return n;
}

/** The writes of a call that applies these buckets. */
export function writeCount(inc: Pick<ApiIncrements, 'buckets'>): number {
  let n = 0;
  for (const b of inc.buckets) n += bucketWrites(b);
  return n;
}

/**
 * The increments as one call when they and the alert counters' are at most `maxWrites` writes. Else the call
 * keeps the rollups' buckets, then, in order, the alert members that fit (a counter may be cut between the call
 * and the chunks), then the hour buckets that still fit (a catch-up batch just over the bound stages only its
 * last buckets: one chunk call more, not all of it); the other hour buckets, then the other alert members, are
 * staged in chunks of at most `maxWrites` writes (a part larger than the bound is a chunk of its own).
 */
export function stageIncrements(
  inc: Pick<ApiIncrements, 'buckets'>,
  maxWrites: number,
  alerts?: AlertIncrements,
): Staged {
  const whole = (): Staged => ({ buckets: inc.buckets, chunks: [], ...(alerts ? { alerts } : {}) });
  if (writeCount(inc) + alertWrites(alerts) <= maxWrites) return whole();
  const rollups = inc.buckets.filter(isRollup);
  const buckets = [...rollups];
  let room = maxWrites - writeCount({ buckets: rollups });
  const writer = new ChunkWriter(maxWrites, WRITES, alerts);
  const keptCounters: AlertCounterIncrements[] = [];
  const stagedMembers: [AlertCounterIncrements, [string, number][]][] = [];
  for (const c of alerts?.counters ?? []) {
    const members = [...c.members];
    const fit = Math.max(0, Math.min(members.length, Math.floor((room - 2 * WRITES.cube) / WRITES.field)));
    if (fit > 0) {
      keptCounters.push(fit === members.length ? c : { ...c, members: new Map(members.slice(0, fit)) });
      room -= 2 * WRITES.cube + fit * WRITES.field;
    }
    if (fit < members.length) stagedMembers.push([c, members.slice(fit)]);
  }
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
  for (const [c, members] of stagedMembers) {
    for (const [member, n] of members) writer.member(c, member, n);
  }
  writer.close();
  return {
    buckets,
    chunks: writer.chunks,
    ...(alerts ? { alerts: { ...alerts, counters: keptCounters } } : {}),
  };
}

/**
 * An open bucket's f cube as section parts per identity shard (docs/store-v2.md "An open hour's f as parts per
 * identity shard"): the current and the previous hour, and the edges of billing zones in the current UTC day. Pure.
 *
 * Live traffic writes these buckets batch after batch, and their f rows (identity, key, tag set) hardly repeat
 * within an hour: as hash fields, nearly one new `HINCRBY` per live event. A busy batch instead appends, per shard of
 * 32 identities (keys.ts SHARD_BITS, the shards of the i cube), one encoded part of its rows to the bucket's list
 * `L:f:<shard>` (`L:f:_` for events without identity): one `RPUSH` per shard. A reader of one identity reads its
 * hash `f:<identity>` and its shard's list, the parts of 32 identities, not every identity's (one list of the whole
 * f per batch made that read 40-200 times slower). A shard with fewer rows than `minRows` in the batch keeps hash
 * fields. The compactor seals such buckets while they are written (open-hours.ts), which folds the parts.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { NO_IDENTITY_PART, partsListSuffix, SHARD_BITS, shardOf } from './keys';
import { encodeSection, NO_IDENTITY, type Section } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';

/**
 * Rows of a shard part below this (of the batch's rows of the shard in one bucket) stay hash fields. Four rows make
 * one `RPUSH` instead of four `HINCRBY`, and keep an open bucket's lists to at most a quarter as many parts as rows:
 * the reads that walk every shard (no identity named) decode one part per shard and batch.
 */
export const SHARD_PARTS_MIN_ROWS = 4;

/** The identity shard of an f row's identity code (-1: no identity). */
const shardNumber = (identity: number): number => (identity === NO_IDENTITY ? -1 : identity >> SHARD_BITS);

/**
 * An open bucket's f rows of a batch (a section: sorted by identity, so a shard's rows are one run), each identity
 * shard's rows as one encoded part of its list (`part(suffix, bytes)`) when they are at least `minRows`, else as the
 * hash fields they would have been (`field(suffix, field, n)`, as forEachDeltaField gives them).
 */
export function writeShardParts(
  f: Section,
  minRows: number,
  part: (suffix: string, bytes: Buffer) => void,
  field: (suffix: string, field: string, n: number) => void,
): void {
  const identities = f.dims[0]!;
  for (let from = 0; from < f.rows;) {
    const shard = shardNumber(identities[from]!);
    let to = from + 1;
    while (to < f.rows && shardNumber(identities[to]!) === shard) to++;
    const rows = rowsOf(f, from, to);
    if (to - from >= minRows) {
      const name = shard < 0 ? NO_IDENTITY_PART : shardOf(shard << SHARD_BITS);
      part(partsListSuffix('f', name), encodeSection(rows, { compress: false }));
    } else forEachDeltaField(rows, field);
    from = to;
  }
}

/** Rows [from, to) of a section, sharing its arrays. */
const rowsOf = (section: Section, from: number, to: number): Section => ({
  ...section,
  rows: to - from,
  dims: section.dims.map((column) => column.subarray(from, to)),
  counts: section.counts.subarray(from * OUTCOME_COUNT, to * OUTCOME_COUNT),
});

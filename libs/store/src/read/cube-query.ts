/**
 * What a query asks of a cube (CubeQuery) and what each of its bucket reads therefore fetches besides
 * the section (DeltaPlan: named hashes, or the parts to look up in the bucket's sets).
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { type BucketRead } from '@va/core';
import { code36, cubeSuffix, SHARD_BITS, shardOf, type Cube } from '../keys';
import { type CodeSelection, type Sign } from '../read-fields';
import { type SectionCube } from '../section/codec';

export interface CubeQuery {
  cube: Cube;
  /** Dictionary codes each filter allows; null = no filter. An empty list matches nothing. */
  keys: readonly number[] | null;
  identities: readonly number[] | null;
  sets: readonly number[] | null;
  /** Dimensions the query groups by (`set` for groupBy tag or tags). */
  group: { key: boolean; identity: boolean; set: boolean };
  /**
   * Length of the dictionary of a k, i or s cube's dimension, loaded for this query. When given
   * (and there are at most DENSE_PARTS_MAX parts), the parts 0 .. (codeCount - 1) >> SHARD_BITS
   * are named (codes are dense, and no counter uses a code its dictionary did not hold when it was
   * written), so that a bucket whose parts set also lists thousands of f parts is not walked.
   * Codes assigned after the dictionary was loaded may be missed, as events written after the
   * read are.
   */
  codeCount?: number;
}

export const signOf = (read: BucketRead): Sign => (read.subtract ? -1 : 1);

/**
 * A filter naming at most this many codes of a sharded cube (or identities of f) names its hashes,
 * when they lie in at most NAMED_MAX_HASHES hashes per bucket. Named hashes cost their key names in
 * every call (twice: delta and sealing) even for a sealed bucket, whose hashes are gone; beyond a few,
 * one P item per bucket costs less (two tags of the medium tenant name 14 shards: 28 keys per bucket,
 * ioredis building the arguments took ~25% of that query).
 */
const HMGET_MAX_CODES = 64;
const NAMED_MAX_HASHES = 4;

/**
 * With `codeCount`, a read of a k, i or s cube names its parts (0 .. (codeCount - 1) >> SHARD_BITS)
 * when there are at most this many; the script reads them by name where the bucket's parts set is
 * larger, and walks the set where it is smaller (none at all once the bucket is sealed).
 */
export const DENSE_PARTS_MAX = 64;

const toSet = (codes: readonly number[] | null): Set<string> | null =>
  codes ? new Set(codes.map(code36)) : null;

export function selectionOf(q: CubeQuery): CodeSelection {
  return {
    cube: q.cube,
    keys: toSet(q.keys),
    identities: toSet(q.identities),
    sets: toSet(q.sets),
    group: q.group,
  };
}

/** The codes filtering the single dimension of a k, i or s cube. */
function filterCodes(q: CubeQuery): readonly number[] | null {
  return q.cube === 'k' ? q.keys : q.cube === 'i' ? q.identities : q.cube === 's' ? q.sets : null;
}

/**
 * The section cube a query reads: its own cube, except that a query of cube f that neither
 * filters nor groups by tag sets reads the identity × key sections `x` (the tag-set detail of f is
 * most of its bytes). The delta of x is f's hashes.
 */
export function sectionCubeOf(q: Pick<CubeQuery, 'cube' | 'sets' | 'group'>): SectionCube {
  return q.cube === 'f' && q.sets === null && !q.group.set ? 'x' : q.cube;
}

/** HMGET fields per shard for a few codes: every outcome of each code. */
function fieldsByShard(codes: readonly number[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const code of codes) {
    const shard = shardOf(code);
    let fields = out.get(shard);
    if (!fields) {
      fields = [];
      out.set(shard, fields);
    }
    const c = code36(code);
    for (let o = 0; o < OUTCOME_COUNT; o++) fields.push(`${c}:${o}`);
  }
  return out;
}

/**
 * What every bucket of a query reads besides its section, worked out once per query: the hashes
 * it names (suffix, part, HMGET fields), or the parts it looks up in its parts sets (null = every
 * part of the cube).
 */
export type DeltaPlan =
  | { kind: 'named'; hashes: { suffix: string; part: string; fields?: string[] }[] }
  | { kind: 'parts'; allowed: string[] | null };

export function deltaPlanOf(q: CubeQuery): DeltaPlan {
  if (q.cube === 't') return { kind: 'named', hashes: [{ suffix: 't', part: '' }] };
  if (q.cube === 'f') {
    const parts = q.identities === null ? null : [...new Set(q.identities.map(code36))];
    if (parts !== null && q.identities!.length <= HMGET_MAX_CODES && parts.length <= NAMED_MAX_HASHES) {
      return { kind: 'named', hashes: parts.map((part) => ({ suffix: cubeSuffix('f', part), part })) };
    }
    return { kind: 'parts', allowed: parts };
  }
  const codes = filterCodes(q);
  if (codes !== null && codes.length <= HMGET_MAX_CODES) {
    const shards = fieldsByShard(codes);
    if (shards.size <= NAMED_MAX_HASHES) {
      const hashes = [...shards].map(([shard, fields]) => ({
        suffix: cubeSuffix(q.cube, shard),
        part: shard,
        fields,
      }));
      return { kind: 'named', hashes };
    }
  }
  if (codes === null && q.codeCount !== undefined) {
    // Every part the dictionary's length allows: the script reads them by name where the
    // parts set is larger (an hour not sealed yet lists every f part too).
    const parts = (q.codeCount + (1 << SHARD_BITS) - 1) >> SHARD_BITS;
    return {
      kind: 'parts',
      allowed: parts <= DENSE_PARTS_MAX ? Array.from({ length: parts }, (_, part) => code36(part)) : null,
    };
  }
  return { kind: 'parts', allowed: codes ? [...new Set(codes.map(shardOf))] : null };
}

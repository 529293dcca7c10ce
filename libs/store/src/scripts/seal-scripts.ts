/**
 * The two Lua commands of sealing (docs/store-v2.md "Sealing"), each as one typed function: its
 * KEYS and ARGV built here from the bucket's keys, its reply decoded here. beginSeal-5.lua and
 * commitSeal-4.lua document the protocol; seal.ts runs it.
 */
import { command } from '../commands';
import type { RedisClient } from '../connection';
import type { apiKeys, Resolution } from '../keys';

type ApiKeys = ReturnType<typeof apiKeys>;

/** A bucket as the seal scripts name it. */
export interface SealTarget {
  keys: ApiKeys;
  res: Resolution;
  index: number;
}

export type SealBegun =
  | { kind: 'empty' }
  | {
      kind: 'seal';
      /**
       * The seal's id: set when the delta was moved to its sealing names, the same for every sealer
       * that resumes that seal, new for the next. The commit must name it (commitSeal-4.lua).
       */
      sealId: string;
      /** The new sections' version. */
      version: number;
      /** Members of zparts: the suffixes of the sealing hashes and lists. */
      suffixes: string[];
    };

const bucketRoot = ({ keys, res, index }: SealTarget): string => `${keys.bucketPrefix(res, index)}:`;

/** beginSeal-5.lua: moves the bucket's delta to its sealing names, or resumes the seal in progress. */
export async function beginSeal(redis: RedisClient, target: SealTarget): Promise<SealBegun> {
  const { keys, res, index } = target;
  const reply = await command<string[]>(redis, 'beginSeal')(
    keys.parts(res, index),
    keys.sealingParts(res, index),
    keys.dirty,
    keys.sealSequence,
    keys.sealId(res, index),
    bucketRoot(target),
    `${res}:${index}`,
  );
  if (reply[0] !== 'seal') return { kind: 'empty' };
  return { kind: 'seal', version: Number(reply[1]), sealId: reply[2]!, suffixes: reply.slice(3) };
}

/** One section cube's compare-and-set: the version bytes it was built on ("" = absent) and the new bytes ("" = none). */
export interface SectionSwap {
  cube: string;
  held: Buffer;
  section: Buffer;
}

export interface SealCommit {
  sealId: string;
  /** The sections' PEXPIREAT (unix ms); 0 = the bucket is past its retention. */
  expireAt: number;
  sections: readonly SectionSwap[];
}

/**
 * ok: written, sealing keys deleted. conflict: a section changed since it was read. gone: the seal
 * this sealer read is no longer the one in progress (another sealer committed it). Nothing is
 * written unless ok.
 */
export type SealCommitted = 'ok' | 'conflict' | 'gone';

/** commitSeal-4.lua: swaps the new sections in and deletes the sealing keys, in one atomic step. */
export async function commitSeal(
  redis: RedisClient,
  target: SealTarget,
  commit: SealCommit,
): Promise<SealCommitted> {
  const { keys, res, index } = target;
  const args: (string | number | Buffer)[] = [
    keys.sealingParts(res, index),
    keys.sealSequence,
    keys.compactedThrough,
    keys.sealId(res, index),
    bucketRoot(target),
    commit.expireAt,
    res === 'h' ? index : '',
    commit.sealId,
    commit.sections.length,
  ];
  for (const { cube, held, section } of commit.sections) args.push(cube, held, section);
  const reply = await command<string[]>(redis, 'commitSeal')(...args);
  if (reply[0] === 'ok' || reply[0] === 'conflict' || reply[0] === 'gone') return reply[0];
  throw new Error(`commitSeal: unexpected reply ${JSON.stringify(reply)}`);
}

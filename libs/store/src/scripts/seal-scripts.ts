/**
 * The two Lua commands of sealing (docs/store-v2.md "Sealing"), each as one typed function: its
 * KEYS and ARGV built here from the bucket's keys, its reply decoded here. beginSeal-5.lua and
 * commitSeal-4.lua document the protocol; seal.ts runs it.
 */
import { command } from '../commands';
import type { RedisClient } from '../connection';
import type { apiKeys, SealedResolution } from '../keys';
import { execPipeline, newPipeline, queueCommand } from '../pipeline';

type ApiKeys = ReturnType<typeof apiKeys>;

/** A bucket as the seal scripts name it. */
export interface SealTarget {
  keys: ApiKeys;
  res: SealedResolution;
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

function beginSealArgs(target: SealTarget): string[] {
  const { keys, res, index } = target;
  return [
    keys.parts(res, index),
    keys.sealingParts(res, index),
    keys.dirty,
    keys.sealSequence,
    keys.sealId(res, index),
    bucketRoot(target),
    `${res}:${index}`,
  ];
}

function decodeBeginSeal(reply: string[]): SealBegun {
  if (reply[0] !== 'seal') return { kind: 'empty' };
  return { kind: 'seal', version: Number(reply[1]), sealId: reply[2]!, suffixes: reply.slice(3) };
}

/** beginSeal-5.lua: moves the bucket's delta to its sealing names, or resumes the seal in progress. */
export async function beginSeal(redis: RedisClient, target: SealTarget): Promise<SealBegun> {
  return decodeBeginSeal(await command<string[]>(redis, 'beginSeal')(...beginSealArgs(target)));
}

/** beginSeal-5.lua for each target, in one round trip (each call atomic on its own). */
export async function beginSeals(redis: RedisClient, targets: readonly SealTarget[]): Promise<SealBegun[]> {
  if (targets.length === 0) return [];
  const pipeline = newPipeline(redis);
  for (const target of targets) queueCommand(redis, pipeline, 'beginSeal', beginSealArgs(target));
  return (await execPipeline(pipeline)).map((reply) => decodeBeginSeal(reply as string[]));
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

function commitSealArgs(target: SealTarget, commit: SealCommit): (string | number | Buffer)[] {
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
  return args;
}

function decodeCommitSeal(reply: string[]): SealCommitted {
  if (reply[0] === 'ok' || reply[0] === 'conflict' || reply[0] === 'gone') return reply[0];
  throw new Error(`commitSeal: unexpected reply ${JSON.stringify(reply)}`);
}

/** commitSeal-4.lua: swaps the new sections in and deletes the sealing keys, in one atomic step. */
export async function commitSeal(
  redis: RedisClient,
  target: SealTarget,
  commit: SealCommit,
): Promise<SealCommitted> {
  return decodeCommitSeal(await command<string[]>(redis, 'commitSeal')(...commitSealArgs(target, commit)));
}

/** commitSeal-4.lua for each (target, commit), in one round trip (each call atomic on its own). */
export async function commitSeals(
  redis: RedisClient,
  commits: readonly { target: SealTarget; commit: SealCommit }[],
): Promise<SealCommitted[]> {
  if (commits.length === 0) return [];
  const pipeline = newPipeline(redis);
  for (const { target, commit } of commits)
    queueCommand(redis, pipeline, 'commitSeal', commitSealArgs(target, commit));
  return (await execPipeline(pipeline)).map((reply) => decodeCommitSeal(reply as string[]));
}

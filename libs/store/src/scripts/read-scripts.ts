/**
 * The readBuckets protocol (commands/readBuckets.lua): a call's KEYS and ARGV from its units, and
 * the C calls that read what a bounded P item left. The replies are decoded in read/read-counts.ts.
 */
import type { ChainableCommander } from 'ioredis';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import { apiKeys, type Cube } from '../keys';
import { queueCommand } from '../pipeline';
import type { Sign } from '../read-fields';
import { PARTS_WEIGHT, type Item, type Unit } from '../read/units';

/**
 * Work of one P item in its call, and of one C call, in readBuckets.lua's units (8 per hash plus
 * one per field): about 1 ms of Redis's thread. An unsealed bucket (the open hour) may list
 * thousands of hashes; what a P item leaves is read by C calls of at most this much each, guarded
 * against a seal in between (readBuckets.lua, "C").
 */
export const PARTS_BUDGET = 2_000;

export type ItemReply = Buffer | number | null | Buffer[];

/** The part of a P item's member ("f" -> "", "f:1a" -> "1a"), as FieldSums keys it. */
export const partOfMember = (cube: Cube, member: string): string =>
  member === cube ? '' : member.slice(cube.length + 1);

/** Hashes a P item named but did not read, with what their counts add to. */
export interface LeftHashes {
  item: Extract<Item, { kind: 'P' }>;
  /** Every slice the bucket counts in, with its sign (a zone's edge hour: one added, one subtracted). */
  targets: readonly { slice: number | null; sign: Sign }[];
  /** The P item's guard: a C call reads only while the bucket's seal state still matches it. */
  guard: string;
  /** "member" (delta) or "z:member" (being sealed). */
  names: string[];
}

/**
 * The C calls that read what P items left: each names at most `budget` / 8 hashes (the script
 * stops earlier when their fields spend the budget), each bucket's names in calls of its own guard.
 */
export function leftCalls(
  keys: ReturnType<typeof apiKeys>,
  lefts: readonly LeftHashes[],
  budget: number,
): { left: LeftHashes; names: string[]; args: string[] }[] {
  const perCall = Math.max(1, Math.floor(budget / PARTS_WEIGHT));
  const calls: { left: LeftHashes; names: string[]; args: string[] }[] = [];
  for (const left of lefts) {
    for (let from = 0; from < left.names.length; from += perCall) {
      const names = left.names.slice(from, from + perCall);
      const hashes = names.map((name) => left.item.root + name);
      const keysOf = [keys.compactedThrough, left.item.sequence, left.item.zparts, ...hashes];
      calls.push({
        left,
        names,
        args: [String(keysOf.length), ...keysOf, 'C', left.guard, String(names.length), String(budget)],
      });
    }
  }
  return calls;
}

/**
 * numkeys, KEYS and ARGV of one readBuckets call (commands/readBuckets.lua). Per bucket: its S
 * item; before its H, P and L items a G guard (no parts and no zparts set: no hash or list to
 * read), and the field lists of its HMGETs and P items, each sent once per call (F).
 */
export function readBucketsArgs(
  keys: ReturnType<typeof apiKeys>,
  chunk: readonly Unit[],
  budget: number,
): (string | Buffer)[] {
  const names: string[] = [keys.compactedThrough];
  const argv: (string | Buffer)[] = [];
  const lists = new Map<string, number>();
  // Every bucket's items share the query's lists: by reference first, so that a long list is joined once.
  const seen = new Map<readonly string[], number>();
  const listOf = (fields: readonly string[]): number => {
    let n = seen.get(fields);
    if (n !== undefined) return n;
    const id = fields.join(' ');
    n = lists.get(id);
    if (n === undefined) {
      n = lists.size + 1;
      lists.set(id, n);
      argv.push('F', String(fields.length), ...fields);
    }
    seen.set(fields, n);
    return n;
  };
  for (const unit of chunk) {
    // Field lists are defined (F) before the G guard: the script steps over guarded items only.
    const hashes = unit.items.filter((item) => item.kind === 'H');
    const listIds = hashes.map((item) => (item.fields ? listOf(item.fields) : 0));
    const partLists = new Map<Item, number>();
    for (const item of unit.items) {
      if (item.kind === 'P') partLists.set(item, item.allowed ? listOf(item.allowed) : 0);
    }
    const guarded = unit.items.filter((item) => item.kind === 'H' || item.kind === 'P' || item.kind === 'L');
    for (const item of unit.items) {
      if (item.kind === 'S') {
        names.push(item.key);
        if (item.fallback) names.push(item.fallback);
        argv.push(item.fallback ? 'X' : 'S', item.held?.version ?? '');
        // A minute unit has no S item (units.ts): only hour, day and month buckets have parts sets.
        if (guarded.length > 0 && unit.read.res !== 'n') {
          names.push(
            keys.parts(unit.read.res, unit.read.index),
            keys.sealingParts(unit.read.res, unit.read.index),
          );
          argv.push('G', String(guarded.length));
        }
      } else if (item.kind === 'L') {
        names.push(item.list, item.sealing);
        argv.push('L');
      } else if (item.kind === 'H') {
        names.push(item.key);
        argv.push('H', String(listIds[hashes.indexOf(item)]));
      } else if (item.kind === 'M') {
        names.push(item.key, ...item.absent);
        argv.push('M', String(item.absent.length));
      } else if (item.kind === 'W') {
        // The minute keys spelled by the script (60 keys of ~50 bytes an hour were most of a minute query's command).
        names.push(item.key, ...item.absent);
        argv.push('W', item.held?.version ?? '', String(item.minutes.length), keys.bucketRoot, item.cube);
        for (const minute of item.minutes) argv.push(String(minute.index));
      } else {
        names.push(item.parts, item.zparts, item.sequence);
        argv.push('P', item.root, item.cube, String(partLists.get(item)), String(budget));
      }
    }
  }
  return [String(names.length), ...names, ...argv];
}

/** Queues one readBuckets call (numkeys, KEYS, ARGV as readBucketsArgs and leftCalls build them); its strings come back as Buffers (sections are binary). */
export function queueReadBuckets(
  redis: RedisClient,
  pipeline: ChainableCommander,
  args: (string | Buffer)[],
): void {
  queueCommand(redis, pipeline, 'readBucketsBuffer', args);
}

/** One readBuckets call on its own, strings as strings: for tests and benches of the protocol's items. */
export function readBucketsOnce(redis: RedisClient, args: (string | number)[]): Promise<unknown[]> {
  return command<unknown[]>(redis, 'readBuckets')(...args);
}

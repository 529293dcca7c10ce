/**
 * The three Lua commands of a rebuild into a new generation (docs/rebuild.md), each with its
 * KEYS/ARGV and its reply decoded side by side: setRebuildStatus-1.lua (the rebuild state's CAS),
 * copyApiGeneration-2.lua (one API started in g') and retireApiGeneration-1.lua (one API's share of
 * the switch). generation-state.ts, generation-copy.ts and generation-switch.ts run them.
 */
import type { ChainableCommander } from 'ioredis';
import { command } from '../commands';
import type { RedisClient } from '../connection';
import type { RebuildFields, RebuildStatus } from '../generation-state';
import { apiKeys, globalKeys, type KeySpace } from '../keys';
import { queueCommand } from '../pipeline';
import { noneOf } from './none';

export type Transition = { ok: true } | { ok: false; status: RebuildStatus | null };

/**
 * setRebuildStatus-1.lua: CAS of the status: moves to `to` only from one of `from` (null = no
 * rebuild recorded), and sets `fields` with it. `fresh` first deletes what a finished rebuild left
 * in the hash.
 */
export async function transitionRebuild(
  redis: RedisClient,
  prefix: string,
  from: readonly (RebuildStatus | null)[],
  to: RebuildStatus,
  fields: RebuildFields = {},
  fresh = false,
): Promise<Transition> {
  const args: (string | number)[] = [
    globalKeys(prefix).rebuild,
    from.map((s) => s ?? '-').join(','),
    to,
    fresh ? '1' : '0',
  ];
  for (const [name, value] of Object.entries(fields)) args.push(name, value === null ? '' : value);
  const reply = await command<[number, string?]>(redis, 'setRebuildStatus')(...args);
  if (reply[0] === 1) return { ok: true };
  const status = reply[1] === '-' || reply[1] === undefined ? null : (reply[1] as RebuildStatus);
  return { ok: false, status };
}

/** First hour, day and month index of the rebuilt range (all three start at one month start). */
export interface CarryBoundary {
  hour: number;
  day: number;
  month: number;
}

/** What one copyApiGeneration call did. */
export type CopyStep =
  /** Copied; `buckets` carried over. */
  | { status: 'ok'; buckets: number }
  /** The API was started in g' before (a resumed rebuild). */
  | { status: 'done' }
  /** `key` of g' exists already: nothing written. */
  | { status: 'exists'; key: string }
  /** g has chunks staged: nothing written; apply them, then call again. */
  | { status: 'staged' };

/**
 * copyApiGeneration-2.lua: starts one API in `target` from `source`: its dictionaries and, with a
 * boundary, its buckets before it, recording what it carried. One attempt (generation-copy.ts loops).
 */
export async function tryCopyApiGeneration(
  redis: RedisClient,
  source: KeySpace,
  target: KeySpace,
  apiId: string,
  boundary: CarryBoundary | null,
): Promise<CopyStep> {
  const from = apiKeys(source, apiId);
  const to = apiKeys(target, apiId);
  const reply = await command<[string, (number | string)?]>(redis, 'copyApiGeneration')(
    from.offsets,
    to.carry,
    from.bucketRoot,
    to.bucketRoot,
    boundary ? '1' : '0',
    boundary?.hour ?? 0,
    boundary?.day ?? 0,
    boundary?.month ?? 0,
  );
  switch (reply[0]) {
    case 'ok':
      return { status: 'ok', buckets: Number(reply[1]) };
    case 'done':
    case 'staged':
      return { status: reply[0] };
    case 'exists':
      return { status: 'exists', key: String(reply[1]) };
    default:
      throw new Error(`copyApiGeneration: unexpected reply ${JSON.stringify(reply)}`);
  }
}

export interface BehindPartition {
  field: string;
  /** Offset g holds (wm or an API's off) that g' lacks. */
  needed: number;
  /** wm of g' (null: none yet). */
  has: number | null;
}

/**
 * Queues one retireApiGeneration-1.lua call: retires `apiId` in `source` if the watermarks of
 * generation `target` (field -> wm, read just before) hold every offset it applied there.
 */
export function queueRetireApiGeneration(
  redis: RedisClient,
  pipeline: ChainableCommander,
  source: KeySpace,
  apiId: string,
  target: number,
  wmTarget: ReadonlyMap<string, number>,
): void {
  const wmArgs = [...wmTarget].flatMap(([field, wm]) => [field, wm]);
  queueCommand(redis, pipeline, 'retireApiGeneration', [apiKeys(source, apiId).offsets, target, ...wmArgs]);
}

/** retireApiGeneration's reply: the partitions g' lacks (up to 8 listed); none = retired. */
export function decodeRetireApiGeneration(reply: unknown): BehindPartition[] {
  const r = reply as (string | number)[];
  if (r[0] === 'ok') return [];
  if (r[0] !== 'behind') throw new Error(`retireApiGeneration: unexpected reply ${JSON.stringify(reply)}`);
  const behind: BehindPartition[] = [];
  for (let i = 2; i + 2 < r.length; i += 3) {
    behind.push({ field: String(r[i]), needed: Number(r[i + 1]), has: noneOf(r[i + 2]) });
  }
  return behind;
}

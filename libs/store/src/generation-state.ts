/**
 * The state of a rebuild (docs/rebuild.md) in the hash `<p>:rebuild`: which generation is rebuilt
 * into which, how far it got, and who runs it. It outlives the process that runs the rebuild, so
 * that `rebuild resume` can continue into the same generation after a crash and `rebuild abort`
 * can stop it from another shell. Status moves are compare-and-set (setRebuildStatus-1.lua, called by
 * transitionRebuild in scripts/generation-scripts.ts).
 *
 *   copying     dictionaries (and with --since the buckets before the boundary) copied into g'
 *   replaying   the rebuild's own consumer applies both topics into g'
 *   compacting  caught up with g: compacting g', then checking that g' holds what g holds
 *   switching   sealing every API in g, then setting <p>:gen (generation-switch.ts); no abort from here
 *   switched    <p>:gen = g'; the old generation is being deleted
 *   done        finished; g deleted
 *   aborted     abandoned; g' deleted (g untouched)
 */
import type { RedisClient } from './connection';
import { globalKeys } from './keys';

export const REBUILD_STATUSES = [
  'copying',
  'replaying',
  'compacting',
  'switching',
  'switched',
  'done',
  'aborted',
] as const;
export type RebuildStatus = (typeof REBUILD_STATUSES)[number];
/** Statuses in which a rebuild still has work to do (and blocks a new one). */
export const ACTIVE_REBUILD: readonly RebuildStatus[] = [
  'copying',
  'replaying',
  'compacting',
  'switching',
  'switched',
];

export interface RebuildState {
  status: RebuildStatus;
  /** The generation queries read while the rebuild runs. */
  source: number;
  /** The generation being built. */
  target: number;
  /** --since as given (unix ms), or null for a rebuild of everything the topics hold. */
  since: number | null;
  /** Start of the first rebuilt month (since rounded down); older buckets are carried over. */
  boundary: number | null;
  /** Consumer group of the rebuild's consumer. */
  group: string;
  /**
   * With --since: wm of g' per partition to start from (the rebuild consumer starts at wm + 1),
   * fixed before anything is copied so that a resumed rebuild starts from the same offsets.
   */
  starts: { field: string; wm: number }[];
  startedAt: number;
  /** Refreshed every second by the process running the rebuild. */
  heartbeatAt: number;
  /** Who runs it: "<host>/<pid>". */
  owner: string;
  /** Set by the process once its consumer stopped (abort waits for it). */
  stoppedAt: number | null;
  switchedAt: number | null;
  finishedAt: number | null;
}

const num = (raw: string | undefined): number | null =>
  raw === undefined || raw === '' ? null : Number(raw);

function parseStarts(raw: string | undefined): RebuildState['starts'] {
  if (!raw) return [];
  const parsed: unknown = JSON.parse(raw);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((entry: unknown) => {
    const e = entry as { field?: unknown; wm?: unknown };
    return typeof e.field === 'string' && typeof e.wm === 'number' ? [{ field: e.field, wm: e.wm }] : [];
  });
}

/** The state hash as a record; null when no rebuild was ever recorded (or it is unreadable). */
export function parseRebuildState(fields: Record<string, string>): RebuildState | null {
  const status = fields.status as RebuildStatus | undefined;
  if (status === undefined || !REBUILD_STATUSES.includes(status)) return null;
  const source = num(fields.source);
  const target = num(fields.target);
  if (source === null || target === null) return null;
  return {
    status,
    source,
    target,
    since: num(fields.since),
    boundary: num(fields.boundary),
    group: fields.group ?? '',
    starts: parseStarts(fields.starts),
    startedAt: num(fields.startedAt) ?? 0,
    heartbeatAt: num(fields.heartbeatAt) ?? 0,
    owner: fields.owner ?? '',
    stoppedAt: num(fields.stoppedAt),
    switchedAt: num(fields.switchedAt),
    finishedAt: num(fields.finishedAt),
  };
}

export async function readRebuildState(redis: RedisClient, prefix: string): Promise<RebuildState | null> {
  return parseRebuildState(await redis.hgetall(globalKeys(prefix).rebuild));
}

/** Fields of the rebuild hash besides the status ('' or null = cleared). */
export type RebuildFields = Record<string, string | number | null>;

/** Fields that do not change the status (heartbeat, owner, stoppedAt). */
export async function updateRebuild(
  redis: RedisClient,
  prefix: string,
  fields: RebuildFields,
): Promise<void> {
  const flat = Object.entries(fields).flatMap(([k, v]) => [k, v === null ? '' : String(v)]);
  if (flat.length > 0) await redis.hset(globalKeys(prefix).rebuild, ...flat);
}

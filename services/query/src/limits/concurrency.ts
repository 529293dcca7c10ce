/**
 * The concurrency limits, shared by every query service through Redis (libs/store
 * commands/acquireSlot.lua: a semaphore whose slots expire, so a crashed service cannot leak
 * them): one per root key and, inside it, one per read-token subject. No library covers a
 * distributed semaphore with expiry in a few lines (redlock-style packages are mutexes), hence
 * this small script.
 */
import { command, globalKeys, type RedisClient } from '@va/store';
import type { LimitOwner } from './owner';

export interface SlotDeps {
  redis: RedisClient;
  prefix: string;
  /** Slots per root key; 0 = no limit. */
  max: number;
  /** Slots per read-token subject, inside its root key's (subjectLimit); absent = max. */
  subjectMax?: number;
  /** A slot expires this long after it was taken (the time budget plus a margin). */
  ttlMs: number;
}

export type SlotResult =
  | { release: () => Promise<void> }
  /** Every slot of the root key, or of the token's subject, is taken. */
  | { full: 'rootKey' | 'subject' };

/** Takes a slot of the root key and, for a read token, of its subject; or none when either is full. */
export async function acquireSlot(deps: SlotDeps, owner: LimitOwner, requestId: string): Promise<SlotResult> {
  if (deps.max <= 0) return { release: async () => undefined };
  const keys = globalKeys(deps.prefix);
  const sets = [keys.querySlots(owner.rootKeyHash)];
  const limits = [deps.max];
  if (owner.subject !== null) {
    sets.push(keys.querySubjectSlots(owner.rootKeyHash, owner.subject));
    limits.push(deps.subjectMax ?? deps.max);
  }
  const full = await command<number>(deps.redis, 'acquireSlot')(
    sets.length,
    ...sets,
    requestId,
    deps.ttlMs,
    ...limits,
  );
  if (full === 1) return { full: 'rootKey' };
  if (full === 2) return { full: 'subject' };
  return {
    release: async () => {
      await Promise.all(sets.map((set) => deps.redis.zrem(set, requestId)));
    },
  };
}

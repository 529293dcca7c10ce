/**
 * The per-root-key concurrency limit, shared by every query service through Redis
 * (libs/store commands/acquireSlot-1.lua: a semaphore whose slots expire, so a crashed
 * service cannot leak them). No library covers a distributed semaphore with expiry in a
 * few lines (redlock-style packages are mutexes), hence this small script.
 */
import { command, globalKeys, type RedisClient } from '@va/store';

export interface SlotDeps {
  redis: RedisClient;
  prefix: string;
  /** Slots per root key; 0 = no limit. */
  max: number;
  /** A slot expires this long after it was taken (the time budget plus a margin). */
  ttlMs: number;
}

/** Takes a slot; returns its release function, or null when every slot is taken. */
export async function acquireSlot(
  deps: SlotDeps,
  rootKeyHash: string,
  requestId: string,
): Promise<(() => Promise<void>) | null> {
  if (deps.max <= 0) return async () => undefined;
  const key = globalKeys(deps.prefix).querySlots(rootKeyHash);
  const taken = await command<number>(deps.redis, 'acquireSlot')(key, requestId, deps.max, deps.ttlMs);
  if (taken !== 1) return null;
  return async () => {
    await deps.redis.zrem(key, requestId);
  };
}

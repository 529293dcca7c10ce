/**
 * The read-token deny-list's one write (its reads: readAuthRecords, registry.ts).
 */
import type { RedisClient } from './connection';
import { globalKeys } from './keys';

/**
 * Puts a read token on the deny-list until it expires anyway (then the entry goes too, so the list
 * holds live tokens only). Returns false when it was listed already.
 */
export async function denyReadToken(
  redis: RedisClient,
  prefix: string,
  token: { tokenId: string; expiresAt: number },
  now: number,
): Promise<boolean> {
  const key = globalKeys(prefix).readTokenDenied(token.tokenId);
  const ttlMs = Math.max(1, token.expiresAt - now);
  return (await redis.set(key, String(now), 'PX', ttlMs, 'NX')) === 'OK';
}

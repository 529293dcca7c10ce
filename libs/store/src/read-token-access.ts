/**
 * What a request with a read token needs from Redis, in one round trip: whether the token is on the
 * deny-list, the root key that minted it (revoked root key → its tokens are refused too), the
 * counter generation and the owner of the API. And the deny-list's one write.
 */
import type { RedisClient } from './connection';
import { globalKeys } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { parseRootKeyRecord, type RootKeyRecord } from './registry';

export interface ReadTokenAccess {
  denied: boolean;
  /** The minting root key; null when it no longer exists. */
  rootKey: RootKeyRecord | null;
  generation: number;
  apiWorkspace: string | null;
}

export async function readTokenAccess(
  redis: RedisClient,
  prefix: string,
  token: { tokenId: string; rootKeyHash: string },
  apiId: string | undefined,
): Promise<ReadTokenAccess> {
  const keys = globalKeys(prefix);
  const pipeline = newPipeline(redis)
    .exists(keys.readTokenDenied(token.tokenId))
    .hgetall(keys.rootKey(token.rootKeyHash))
    .get(keys.generation);
  if (apiId !== undefined) pipeline.get(keys.api(apiId));
  const [denied, fields, generation, workspace] = (await execPipeline(pipeline)) as [
    number,
    Record<string, string>,
    string | null,
    string | null | undefined,
  ];
  return {
    denied: denied === 1,
    rootKey: parseRootKeyRecord(fields),
    generation: generation === null ? 1 : Number(generation),
    apiWorkspace: workspace ?? null,
  };
}

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

/**
 * The registry: which workspace owns an API, and the workspace's root keys.
 *
 * Root keys are stored only as the SHA-256 of their plaintext (hex), in the hash
 * `<p>:rootkey:<sha256>` with fields workspaceId, permissions (JSON array), createdAt and,
 * once revoked, revokedAt (unix ms). A key is never deleted, so a revocation cannot be
 * undone by a lookup racing it. The plaintext is returned once, by createRootKey.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient } from './connection';
import { globalKeys } from './keys';
import { execPipeline, newPipeline } from './pipeline';

export const ROOT_KEY_PREFIX = 'vak_';
const ROOT_KEY_RANDOM_CHARS = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface RootKeyRecord {
  workspaceId: string;
  permissions: string[];
  createdAt: number;
  /** Unix ms of the revocation; absent while the key is valid. */
  revokedAt?: number;
}

/** `vak_` + 32 uniformly random base62 characters (~190 bits). */
export function generateRootKey(): string {
  let out = ROOT_KEY_PREFIX;
  while (out.length < ROOT_KEY_PREFIX.length + ROOT_KEY_RANDOM_CHARS) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 * 62: rejecting the bytes above keeps every character equally likely.
      if (byte < 248 && out.length < ROOT_KEY_PREFIX.length + ROOT_KEY_RANDOM_CHARS) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const hashRootKey = (plaintext: string): string =>
  createHash('sha256').update(plaintext).digest('hex');

/** The stored fields of a root key (HGETALL result) as a record; null when absent or damaged. */
export function parseRootKeyRecord(fields: Record<string, string> | null | undefined): RootKeyRecord | null {
  if (!fields || fields.workspaceId === undefined || fields.permissions === undefined) return null;
  let permissions: unknown;
  try {
    permissions = JSON.parse(fields.permissions);
  } catch {
    return null;
  }
  if (!Array.isArray(permissions) || !permissions.every((p): p is string => typeof p === 'string'))
    return null;
  const record: RootKeyRecord = {
    workspaceId: fields.workspaceId,
    permissions,
    createdAt: Number(fields.createdAt ?? 0),
  };
  if (fields.revokedAt !== undefined) record.revokedAt = Number(fields.revokedAt);
  return record;
}

export interface CreatedRootKey {
  /** The plaintext: shown once, never stored. */
  key: string;
  hash: string;
}

export async function createRootKey(
  redis: RedisClient,
  prefix: string,
  input: { workspaceId: string; permissions: readonly string[]; now: number },
): Promise<CreatedRootKey> {
  const key = generateRootKey();
  const hash = hashRootKey(key);
  // 190 random bits: a collision with an existing key is not a case worth code.
  await redis.hset(globalKeys(prefix).rootKey(hash), {
    workspaceId: input.workspaceId,
    permissions: JSON.stringify([...new Set(input.permissions)]),
    createdAt: String(input.now),
  });
  return { key, hash };
}

export async function findRootKey(
  redis: RedisClient,
  prefix: string,
  plaintext: string,
): Promise<RootKeyRecord | null> {
  return parseRootKeyRecord(await redis.hgetall(globalKeys(prefix).rootKey(hashRootKey(plaintext))));
}

export type RevokeResult = 'revoked' | 'already_revoked' | 'unknown';

/** Marks the key revoked (keeps the first revocation time). */
export async function revokeRootKey(
  redis: RedisClient,
  prefix: string,
  plaintext: string,
  now: number,
): Promise<RevokeResult> {
  return revokeRootKeyByHash(redis, prefix, hashRootKey(plaintext), now);
}

/** A root key's id: the SHA-256 (hex) that Redis stores, which names the key without revealing it. */
export const ROOT_KEY_ID_PATTERN = /^[0-9a-f]{64}$/;

/** revokeRootKey by the key's id (its stored hash), so that the secret need not be typed again. */
export async function revokeRootKeyByHash(
  redis: RedisClient,
  prefix: string,
  hash: string,
  now: number,
): Promise<RevokeResult> {
  const key = globalKeys(prefix).rootKey(hash);
  if ((await redis.hexists(key, 'workspaceId')) !== 1) return 'unknown';
  return (await redis.hsetnx(key, 'revokedAt', String(now))) === 1 ? 'revoked' : 'already_revoked';
}

/** The workspace that owns an API, or null when no event of it arrived and nobody registered it. */
export async function apiWorkspace(
  redis: RedisClient,
  prefix: string,
  apiId: string,
): Promise<string | null> {
  return redis.get(globalKeys(prefix).api(apiId));
}

export type RegisterResult =
  | { ok: true; created: boolean }
  | { ok: false; owner: string /** the API already belongs to another workspace */ };

/** Registers an API to a workspace before its first event. Idempotent; never moves an API. */
export async function registerApi(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  workspaceId: string,
): Promise<RegisterResult> {
  const keys = globalKeys(prefix);
  // SET NX GET answers the previous owner atomically (one key); the apis sets are other slots on a
  // cluster, so they are added to after the claim (SADD is idempotent: a retry completes a half-done one).
  const previous = (await redis.call('SET', keys.api(apiId), workspaceId, 'NX', 'GET')) as string | null;
  if (previous !== null && previous !== workspaceId) return { ok: false, owner: previous };
  await execPipeline(newPipeline(redis).sadd(keys.apis, apiId).sadd(keys.workspaceApis(workspaceId), apiId));
  return { ok: true, created: previous === null };
}

export interface AuthRecords {
  /** The root key asked for (revoked keys are returned, with revokedAt); null when unknown. */
  rootKey?: RootKeyRecord | null;
  /** Whether the read token asked for is on the deny-list. */
  denied?: boolean;
  /** Workspace owning the API asked for; null when unknown. */
  apiWorkspace?: string | null;
}

/** What authenticating a request needs (only the parts asked for: the caller caches the rest), in one round trip. */
export async function readAuthRecords(
  redis: RedisClient,
  prefix: string,
  want: { rootKeyHash?: string; deniedTokenId?: string; apiId?: string },
): Promise<AuthRecords> {
  const keys = globalKeys(prefix);
  const pipeline = newPipeline(redis);
  if (want.rootKeyHash !== undefined) pipeline.hgetall(keys.rootKey(want.rootKeyHash));
  if (want.deniedTokenId !== undefined) pipeline.exists(keys.readTokenDenied(want.deniedTokenId));
  if (want.apiId !== undefined) pipeline.get(keys.api(want.apiId));
  const replies = await execPipeline(pipeline);
  let n = 0;
  const records: AuthRecords = {};
  if (want.rootKeyHash !== undefined)
    records.rootKey = parseRootKeyRecord(replies[n++] as Record<string, string>);
  if (want.deniedTokenId !== undefined) records.denied = replies[n++] === 1;
  if (want.apiId !== undefined) records.apiWorkspace = (replies[n++] as string | null) ?? null;
  return records;
}

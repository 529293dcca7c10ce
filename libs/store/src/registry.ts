/**
 * The registry: which workspace owns an API, its default time zone, and the workspace's root keys.
 *
 * An API's default time zone (`<p>:apitz:<apiId>`, an IANA name; absent = UTC) is the calendar of
 * its queries that name no timeZone and of its alert rules created without one (docs/api.md#time-zones).
 * The store keeps the name it is given: callers check it first (libs/core checkTimeZone).
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

/**
 * Registers an API to a workspace before its first event. Idempotent; never moves an API. With `timeZone`
 * (checked), also sets the API's default zone, whether the API was new or already the workspace's; the
 * zone of an API that belongs to another workspace is left alone.
 */
export async function registerApi(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  workspaceId: string,
  options: { timeZone?: string } = {},
): Promise<RegisterResult> {
  const keys = globalKeys(prefix);
  // SET NX GET answers the previous owner atomically (one key); the apis sets and the zone are other slots
  // on a cluster, so they are written after the claim (idempotent: a retry completes a half-done one).
  const previous = (await redis.call('SET', keys.api(apiId), workspaceId, 'NX', 'GET')) as string | null;
  if (previous !== null && previous !== workspaceId) return { ok: false, owner: previous };
  const pipeline = newPipeline(redis).sadd(keys.apis, apiId).sadd(keys.workspaceApis(workspaceId), apiId);
  if (options.timeZone !== undefined) pipeline.set(keys.apiTimeZone(apiId), options.timeZone);
  await execPipeline(pipeline);
  return { ok: true, created: previous === null };
}

/** The zone of an API without one set. */
export const DEFAULT_API_TIME_ZONE = 'UTC';

/** An API's default time zone: the name set, else UTC. */
export async function apiTimeZone(redis: RedisClient, prefix: string, apiId: string): Promise<string> {
  return (await redis.get(globalKeys(prefix).apiTimeZone(apiId))) ?? DEFAULT_API_TIME_ZONE;
}

export type SetTimeZoneResult =
  { ok: true; previous: string } | { ok: false /** the API is not registered */ };

/**
 * Changes a registered API's default time zone (`timeZone` checked); answers the zone it had. Queries
 * follow within QUERY_AUTH_CACHE_MS (the query services cache it with the API's owner); alert rules keep
 * the zone they were created with.
 */
export async function setApiTimeZone(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  timeZone: string,
): Promise<SetTimeZoneResult> {
  const keys = globalKeys(prefix);
  if ((await redis.exists(keys.api(apiId))) !== 1) return { ok: false };
  const previous = (await redis.call('SET', keys.apiTimeZone(apiId), timeZone, 'GET')) as string | null;
  return { ok: true, previous: previous ?? DEFAULT_API_TIME_ZONE };
}

export interface AuthRecords {
  /** The root key asked for (revoked keys are returned, with revokedAt); null when unknown. */
  rootKey?: RootKeyRecord | null;
  /** Whether the read token asked for is on the deny-list. */
  denied?: boolean;
  /** Workspace owning the API asked for; null when unknown. */
  apiWorkspace?: string | null;
  /** The default time zone of the API asked for (with apiWorkspace); null when none is set (UTC). */
  apiTimeZone?: string | null;
  /** The billing zones of the API asked for (with apiWorkspace), zone n at position n - 1. */
  apiBillingZones?: string[];
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
  if (want.apiId !== undefined) {
    pipeline
      .get(keys.api(want.apiId))
      .get(keys.apiTimeZone(want.apiId))
      .lrange(keys.apiBillingZones(want.apiId), 0, -1);
  }
  const replies = await execPipeline(pipeline);
  let n = 0;
  const records: AuthRecords = {};
  if (want.rootKeyHash !== undefined)
    records.rootKey = parseRootKeyRecord(replies[n++] as Record<string, string>);
  if (want.deniedTokenId !== undefined) records.denied = replies[n++] === 1;
  if (want.apiId !== undefined) {
    records.apiWorkspace = (replies[n++] as string | null) ?? null;
    records.apiTimeZone = (replies[n++] as string | null) ?? null;
    records.apiBillingZones = (replies[n++] as string[] | null) ?? [];
  }
  return records;
}

/**
 * Who is asking: a root key of a workspace, or an end-user read token minted by one (docs/read-tokens.md).
 * The root key, the token's deny-list entry and the API's owner (with its default time zone) come from the auth cache
 * (access-cache.ts: at most QUERY_AUTH_CACHE_MS old), what it lacks from Redis in one round trip.
 * Every failure here is 401 unauthorized, before the query is looked at (docs/api.md#errors: the order of the checks).
 */
import type { Config } from '@va/config';
import { looksLikeReadToken, verifyReadToken, type ReadTokenClaims } from '@va/read-tokens';
import { hashRootKey, readAuthRecords, type RedisClient, type RootKeyRecord } from '@va/store';
import { ApiError } from '../http/api-error';
import type { ApiRecord, AuthCache } from './access-cache';

export type Principal =
  | { kind: 'rootKey'; workspaceId: string; permissions: string[]; rootKeyHash: string }
  | { kind: 'readToken'; workspaceId: string; rootKeyHash: string; claims: ReadTokenClaims };

export interface Authenticated {
  principal: Principal;
  /** Owner of the API asked for; null when unknown or no apiId was given. */
  apiWorkspace: string | null;
  /** The default time zone of the API asked for; null when none is set (UTC) or the API is unknown. */
  apiTimeZone: string | null;
  /** The billing zones of the API asked for (docs/api.md#billing-zones); empty when none or unknown. */
  apiBillingZones: readonly string[];
}

export interface AuthDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'readTokenKeys'>;
  authCache: AuthCache;
}

const TOKEN_DETAIL = {
  expired: 'The read token has expired; ask for a new one.',
  unknown_key: 'The read token is not valid: it was signed with a key this service does not have (any more).',
  invalid: 'The read token is not valid.',
  revoked: 'The read token has been revoked.',
} as const;

interface Records {
  rootKey: RootKeyRecord | null;
  denied: boolean;
  api: ApiRecord | null;
}

/** The records of a request, from the cache where it has them, else read (and cached when they exist). */
async function records(
  deps: AuthDeps,
  rootKeyHash: string,
  tokenId: string | undefined,
  apiId: string | undefined,
): Promise<Records> {
  const cache = deps.authCache;
  const rootKey = cache.rootKeys.get(rootKeyHash);
  const denied = tokenId === undefined ? false : cache.deniedTokens.get(tokenId);
  const api = apiId === undefined ? null : cache.apis.get(apiId);
  const want = {
    ...(rootKey === undefined && { rootKeyHash }),
    ...(denied === undefined && { deniedTokenId: tokenId! }),
    ...(api === undefined && { apiId: apiId! }),
  };
  if (Object.keys(want).length === 0) return { rootKey: rootKey!, denied: denied!, api: api! };
  const since = cache.clock();
  const read = await readAuthRecords(deps.redis, deps.config.keyPrefix, want);
  if (read.rootKey) cache.rootKeys.set(rootKeyHash, read.rootKey, since);
  if (read.denied !== undefined) cache.deniedTokens.set(tokenId!, read.denied, since);
  const readApi = read.apiWorkspace
    ? {
        workspaceId: read.apiWorkspace,
        timeZone: read.apiTimeZone ?? null,
        billingZones: read.apiBillingZones ?? [],
      }
    : null;
  if (readApi) cache.apis.set(apiId!, readApi, since);
  return {
    rootKey: rootKey ?? read.rootKey ?? null,
    denied: denied ?? read.denied ?? false,
    api: api ?? readApi,
  };
}

/** The principal behind a bearer token; throws 401 when there is none. */
export async function authenticate(
  deps: AuthDeps,
  bearer: string,
  apiId: string | undefined,
  now: number,
): Promise<Authenticated> {
  const { config } = deps;
  if (looksLikeReadToken(bearer)) {
    const verified = await verifyReadToken(config.readTokenKeys, bearer, now);
    if (!verified.ok) throw new ApiError('unauthorized', TOKEN_DETAIL[verified.reason]);
    const claims = verified.claims;
    const access = await records(deps, claims.rootKeyHash, claims.tokenId, apiId);
    const minter = access.rootKey;
    if (access.denied || minter === null || minter.revokedAt !== undefined) {
      throw new ApiError('unauthorized', TOKEN_DETAIL.revoked);
    }
    if (minter.workspaceId !== claims.workspaceId) throw new ApiError('unauthorized', TOKEN_DETAIL.invalid);
    return {
      principal: {
        kind: 'readToken',
        workspaceId: claims.workspaceId,
        rootKeyHash: claims.rootKeyHash,
        claims,
      },
      apiWorkspace: access.api?.workspaceId ?? null,
      apiTimeZone: access.api?.timeZone ?? null,
      apiBillingZones: access.api?.billingZones ?? [],
    };
  }
  const rootKeyHash = hashRootKey(bearer);
  const access = await records(deps, rootKeyHash, undefined, apiId);
  const rootKey = access.rootKey;
  if (rootKey === null || rootKey.revokedAt !== undefined) {
    throw new ApiError('unauthorized', 'The root key is unknown or has been revoked.');
  }
  return {
    principal: {
      kind: 'rootKey',
      workspaceId: rootKey.workspaceId,
      permissions: rootKey.permissions,
      rootKeyHash,
    },
    apiWorkspace: access.api?.workspaceId ?? null,
    apiTimeZone: access.api?.timeZone ?? null,
    apiBillingZones: access.api?.billingZones ?? [],
  };
}

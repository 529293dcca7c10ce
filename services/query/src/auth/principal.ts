/**
 * Who is asking: a root key of a workspace, or an end-user read token minted by one (docs/read-tokens.md).
 * One Redis round trip either way, which also brings the counter generation and the API's owner.
 * Every failure here is 401 unauthorized, before the query is looked at (docs/api.md#errors: the order of the checks).
 */
import type { Config } from '@va/config';
import { looksLikeReadToken, verifyReadToken, type ReadTokenClaims } from '@va/read-tokens';
import { hashRootKey, readAccess, readTokenAccess, type RedisClient } from '@va/store';
import { ApiError } from '../http/api-error';

export type Principal =
  | { kind: 'rootKey'; workspaceId: string; permissions: string[]; rootKeyHash: string }
  | { kind: 'readToken'; workspaceId: string; rootKeyHash: string; claims: ReadTokenClaims };

export interface Authenticated {
  principal: Principal;
  generation: number;
  /** Owner of the API asked for; null when unknown or no apiId was given. */
  apiWorkspace: string | null;
}

export interface AuthDeps {
  redis: RedisClient;
  config: Pick<Config, 'keyPrefix' | 'readTokenKeys'>;
}

const TOKEN_DETAIL = {
  expired: 'The read token has expired; ask for a new one.',
  unknown_key: 'The read token is not valid: it was signed with a key this service does not have (any more).',
  invalid: 'The read token is not valid.',
  revoked: 'The read token has been revoked.',
} as const;

/** The principal behind a bearer token; throws 401 when there is none. */
export async function authenticate(
  deps: AuthDeps,
  bearer: string,
  apiId: string | undefined,
  now: number,
): Promise<Authenticated> {
  const { redis, config } = deps;
  if (looksLikeReadToken(bearer)) {
    const verified = await verifyReadToken(config.readTokenKeys, bearer, now);
    if (!verified.ok) throw new ApiError('unauthorized', TOKEN_DETAIL[verified.reason]);
    const claims = verified.claims;
    const access = await readTokenAccess(redis, config.keyPrefix, claims, apiId);
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
      generation: access.generation,
      apiWorkspace: access.apiWorkspace,
    };
  }
  const access = await readAccess(redis, config.keyPrefix, bearer, apiId);
  const rootKey = access.rootKey;
  if (rootKey === null || rootKey.revokedAt !== undefined) {
    throw new ApiError('unauthorized', 'The root key is unknown or has been revoked.');
  }
  return {
    principal: {
      kind: 'rootKey',
      workspaceId: rootKey.workspaceId,
      permissions: rootKey.permissions,
      rootKeyHash: hashRootKey(bearer),
    },
    generation: access.generation,
    apiWorkspace: access.apiWorkspace,
  };
}

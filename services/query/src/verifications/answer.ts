/**
 * GET /v1/analytics.getVerifications, from raw request to rows (CONTRACT §3-§5), in the
 * contract's order: 401 (no / bad / unknown / revoked root key) -> 400 (query) ->
 * 403 (permission) -> 404 (API not in the key's workspace) -> read the rows.
 */
import type { Redis } from 'ioredis';
import type { Config } from '@va/config';
import { parseQuery, type ParsedQuery } from '@va/core';
import { hashRootKey, readAccess, type KeySpace } from '@va/store';
import { bearerToken } from '../auth/bearer';
import { canReadApi, READ_ANY_API, readApiPermission } from '../auth/permissions';
import { ApiError } from '../http/api-error';
import type { DictionaryCache } from './dictionary-cache';
import { readAnswer, type Answer } from './read-answer';

export type { Answer } from './read-answer';

export interface VerificationsDeps {
  redis: Redis;
  config: Pick<Config, 'keyPrefix' | 'maxRows' | 'retention'>;
  now: () => number;
  dictionaries: DictionaryCache;
}

export interface VerificationsRequest {
  /** The Authorization header as received. */
  authorization: string | string[] | undefined;
  /** Query string pairs, percent-decoded, in order (URLSearchParams). */
  params: Iterable<[string, string]>;
}

/** A request that passed every check: what to read, and whose limits it counts against. */
export interface Authorized {
  query: ParsedQuery;
  space: KeySpace;
  /** sha256 of the root key (its id in Redis): rate and concurrency limits are kept per root key. */
  rootKeyHash: string;
  /** The server clock when the request arrived. */
  now: number;
}

export async function answerVerifications(
  deps: VerificationsDeps,
  request: VerificationsRequest,
  signal?: AbortSignal,
): Promise<Answer> {
  const authorized = await authorize(deps, request);
  return readAnswer(deps, authorized.space, authorized.query, authorized.now, signal);
}

/** The checks of CONTRACT §5 in order; throws the ApiError of the first that fails. */
export async function authorize(deps: VerificationsDeps, request: VerificationsRequest): Promise<Authorized> {
  const token = bearerToken(request.authorization);
  if (token === null) {
    throw new ApiError('unauthorized', 'Send the root key in the header Authorization: Bearer <root key>.');
  }
  const now = deps.now();
  const { maxRows, keyPrefix } = deps.config;
  // Pure and cheap: parsed first so that the API owner is read in the same round trip as the key.
  const parsed = parseQuery(request.params, { now, maxRows });
  const access = await readAccess(deps.redis, keyPrefix, token, parsed.ok ? parsed.query.apiId : undefined);
  const rootKey = access.rootKey;
  if (rootKey === null || rootKey.revokedAt !== undefined) {
    throw new ApiError('unauthorized', 'The root key is unknown or has been revoked.');
  }
  if (!parsed.ok) throw new ApiError('invalid_input', 'The query is not valid; see errors.', parsed.errors);
  const query = parsed.query;
  if (!canReadApi(rootKey.permissions, query.apiId)) {
    throw new ApiError(
      'forbidden',
      `The root key lacks the permission to read this API: it needs ${READ_ANY_API} or ${readApiPermission(query.apiId)}.`,
    );
  }
  if (access.apiWorkspace !== rootKey.workspaceId) {
    throw new ApiError(
      'not_found',
      `The API ${query.apiId} does not exist in the workspace of this root key.`,
    );
  }
  return {
    query,
    space: { prefix: keyPrefix, generation: access.generation },
    rootKeyHash: hashRootKey(token),
    now,
  };
}

/**
 * GET /v1/analytics.getVerifications, from raw request to rows (CONTRACT §3-§5), in the
 * contract's order: 401 (no / bad / unknown / revoked root key) -> 400 (query) ->
 * 403 (permission) -> 404 (API not in the key's workspace) -> read the rows.
 */
import { parseQuery } from '@va/core';
import { readAccess } from '@va/store';
import { bearerToken } from '../auth/bearer';
import { canReadApi, READ_ANY_API, readApiPermission } from '../auth/permissions';
import { ApiError } from '../http/api-error';
import type { VerificationsDeps } from './deps';
import { readAnswer, type Answer } from './read-answer';

export type { Answer } from './read-answer';
export type { VerificationsDeps } from './deps';

export interface VerificationsRequest {
  /** The Authorization header as received. */
  authorization: string | string[] | undefined;
  /** Query string pairs, percent-decoded, in order (URLSearchParams). */
  params: Iterable<[string, string]>;
}

export async function answerVerifications(
  deps: VerificationsDeps,
  request: VerificationsRequest,
): Promise<Answer> {
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
  return readAnswer(deps, { prefix: keyPrefix, generation: access.generation }, query, now);
}

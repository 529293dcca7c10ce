/**
 * GET /v1/analytics.getVerifications, the checks of a raw request before its rows are read
 * (docs/api.md#query), in the order of docs/api.md#errors: 401 (no / bad / unknown / revoked root key or read token) -> 400 (query) ->
 * 403 (permission; a read token's API and externalId) -> 404 (API not in the workspace); the route then reads the rows (read-answer.ts readAnswerJson).
 */
import { namesTimeZone, parseQuery, withDefaultTimeZone, zoneNameOf, type ParsedQuery } from '@va/core';
import { bearerToken } from '../auth/bearer';
import { authenticate, type AuthDeps, type Principal } from '../auth/principal';
import { canReadApi, READ_ANY_API, readApiPermission } from '../auth/permissions';
import { ApiError } from '../http/api-error';
import { subjectOf } from '../limits/owner';
import type { VerificationsDeps } from './deps';

export type { VerificationsDeps } from './deps';

export interface VerificationsRequest {
  /** The Authorization header as received. */
  authorization: string | string[] | undefined;
  /** Query string pairs, percent-decoded, in order (URLSearchParams; read more than once). */
  params: Iterable<[string, string]>;
}

/** A request that passed every check: what to read, and whose limits it counts against. */
export interface Authorized {
  /** In the query's timeZone, else the API's default zone (docs/api.md#time-zones). */
  query: ParsedQuery;
  /** The name of the zone the query is answered in (the header X-Time-Zone). */
  timeZone: string;
  /**
   * sha256 of the root key (its id in Redis), or of the root key that minted the read token:
   * rate and concurrency limits are kept per root key.
   */
  rootKeyHash: string;
  /** A read token's subject (subjectOf its externalId): limited to a share of its root key's limits; null for a root key. */
  subject: string | null;
  /** The server clock when the request arrived. */
  now: number;
}

/** The checks of docs/api.md#errors in order; throws the ApiError of the first that fails. */
export async function authorize(
  deps: VerificationsDeps & Pick<AuthDeps, 'authCache'>,
  request: VerificationsRequest,
): Promise<Authorized> {
  const bearer = bearerToken(request.authorization);
  if (bearer === null) {
    throw new ApiError(
      'unauthorized',
      'Send a root key or a read token in the header Authorization: Bearer <token>.',
    );
  }
  const now = deps.now();
  const { maxRows } = deps.config;
  // Pure and cheap: parsed first so that the API owner is read in the same round trip as the key.
  const minuteRetentionMs = deps.config.retention.minuteMs ?? 0;
  const parsed = parseQuery(request.params, { now, maxRows, minuteRetentionMs });
  const auth = await authenticate(deps, bearer, parsed.ok ? parsed.query.apiId : undefined, now);
  if (!parsed.ok) throw new ApiError('invalid_input', 'The query is not valid; see errors.', parsed.errors);
  const scoped = scopedQuery(auth.principal, parsed.query);
  if (auth.apiWorkspace !== auth.principal.workspaceId) {
    throw new ApiError(
      'not_found',
      `The API ${scoped.apiId} does not exist in the workspace of this root key.`,
    );
  }
  // The API's default zone comes with its owner (the auth cache): a change reaches every service within
  // QUERY_AUTH_CACHE_MS.
  const zoned = namesTimeZone(request.params)
    ? scoped
    : withDefaultTimeZone(scoped, auth.apiTimeZone ?? undefined);
  const timeZone = zoneNameOf(zoned.timeZone);
  // A declared billing zone (with the API's owner, from the auth cache) is read from its counted edges.
  const billing =
    zoned.timeZone === undefined ? -1 : auth.apiBillingZones.findIndex((z) => zoneNameOf(z) === timeZone);
  const query = billing < 0 ? zoned : { ...zoned, billingZone: billing + 1 };
  return {
    query,
    timeZone,
    rootKeyHash: auth.principal.rootKeyHash,
    subject: auth.principal.kind === 'readToken' ? subjectOf(auth.principal.claims.externalId) : null,
    now,
  };
}

/**
 * The query the principal may ask (403 otherwise): a root key needs the read permission; a read
 * token reads its own API only, and only its own externalId, which it fixes when the query has none.
 */
export function scopedQuery(principal: Principal, query: ParsedQuery): ParsedQuery {
  if (principal.kind === 'rootKey') {
    if (!canReadApi(principal.permissions, query.apiId)) {
      throw new ApiError(
        'forbidden',
        `The root key lacks the permission to read this API: it needs ${READ_ANY_API} or ${readApiPermission(query.apiId)}.`,
      );
    }
    return query;
  }
  const { apiId, externalId } = principal.claims;
  if (query.apiId !== apiId) {
    throw new ApiError('forbidden', `This read token reads the API ${apiId} only.`);
  }
  if (query.externalId !== undefined && query.externalId !== externalId) {
    throw new ApiError(
      'forbidden',
      "This read token reads one end user's data only: leave externalId out, or send the token's own.",
    );
  }
  return { ...query, externalId };
}

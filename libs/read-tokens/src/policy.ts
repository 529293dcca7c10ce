/**
 * The fixed rules of read tokens: who they are for (issuer, audience, JOSE type), how long they
 * live, and how they are signed. Documented in docs/read-tokens.md.
 */
export const READ_TOKEN_ISSUER = 'verification-analytics';
/** The only operation a read token opens. */
export const READ_TOKEN_AUDIENCE = 'va:getVerifications';
/** Explicit JOSE type (RFC 8725 §3.11): no other JWT signed with the same key can pass as a read token. */
export const READ_TOKEN_TYPE = 'va-read+jwt';
export const READ_TOKEN_ALGORITHM = 'HS256';

/** Lifetime in seconds (the request schema's bounds): default 15 minutes, at most 24 hours. */
export { READ_TOKEN_DEFAULT_TTL_S, READ_TOKEN_MAX_TTL_S, READ_TOKEN_MIN_TTL_S } from '@va/contracts';

/** A signing key: `kid` goes into the token header, the secret (≥ 32 bytes) signs with HMAC-SHA-256. */
export interface ReadTokenKey {
  kid: string;
  secret: string;
}

/** Permission a root key needs to mint read tokens for an API. */
export const CREATE_ANY_READ_TOKEN = 'api.*.create_read_token';
export const createReadTokenPermission = (apiId: string): string => `api.${apiId}.create_read_token`;

export function canCreateReadToken(permissions: readonly string[], apiId: string): boolean {
  const specific = createReadTokenPermission(apiId);
  return permissions.some((p) => p === CREATE_ANY_READ_TOKEN || p === specific);
}

/**
 * `Authorization: Bearer <token>` → the token, or null when the header is missing or malformed. Pure.
 * Up to 4096 characters: a read token (JWT) with a long non-ASCII externalId takes ~2000.
 */
const BEARER = /^Bearer +([\x21-\x7e]{1,4096}) *$/i;

export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

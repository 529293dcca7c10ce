/** What a read token says, in our words (ms times), and its JWT payload. */
import { EXTERNAL_ID_PATTERN, IDENTIFIER_PATTERN } from '@va/contracts';

export interface ReadTokenClaims {
  /** jti: unique id, the handle of the deny-list. */
  tokenId: string;
  workspaceId: string;
  apiId: string;
  /** sub: the end user the token reads for. */
  externalId: string;
  /** SHA-256 (hex) of the root key that minted it: a revoked root key revokes its tokens. */
  rootKeyHash: string;
  issuedAt: number;
  expiresAt: number;
}

/** Custom claims beside the registered ones (iss, aud, sub, iat, exp, jti). */
export interface ReadTokenPayload {
  ws: string;
  api: string;
  rkh: string;
}

const identifier = new RegExp(IDENTIFIER_PATTERN);
const externalId = new RegExp(EXTERNAL_ID_PATTERN);
const sha256Hex = /^[0-9a-f]{64}$/;
/** A token id (jti): what `token revoke` takes, so that the token itself stays off command lines. */
export const READ_TOKEN_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** The claims of a payload whose signature, iss, aud, typ and times were already checked; null when malformed. */
export function claimsOf(payload: Record<string, unknown>): ReadTokenClaims | null {
  const { ws, api, rkh, sub, jti, iat, exp } = payload;
  if (typeof ws !== 'string' || !identifier.test(ws)) return null;
  if (typeof api !== 'string' || !identifier.test(api)) return null;
  if (typeof sub !== 'string' || !externalId.test(sub)) return null;
  if (typeof rkh !== 'string' || !sha256Hex.test(rkh)) return null;
  if (typeof jti !== 'string' || !READ_TOKEN_ID_PATTERN.test(jti)) return null;
  if (typeof iat !== 'number' || typeof exp !== 'number') return null;
  return {
    tokenId: jti,
    workspaceId: ws,
    apiId: api,
    externalId: sub,
    rootKeyHash: rkh,
    issuedAt: iat * 1000,
    expiresAt: exp * 1000,
  };
}

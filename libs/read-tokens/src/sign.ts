/** Minting a read token: a JWT (HS256) signed with the first configured key, its kid in the header. */
import { SignJWT, base64url } from 'jose';
import type { ReadTokenClaims, ReadTokenPayload } from './claims';
import {
  READ_TOKEN_ALGORITHM,
  READ_TOKEN_AUDIENCE,
  READ_TOKEN_ISSUER,
  READ_TOKEN_TYPE,
  type ReadTokenKey,
} from './policy';

export interface MintInput {
  workspaceId: string;
  apiId: string;
  externalId: string;
  rootKeyHash: string;
  /** Unix ms; the token's iat (whole seconds, as JWT wants). */
  now: number;
  ttlSeconds: number;
}

export interface MintedToken {
  token: string;
  claims: ReadTokenClaims;
}

export const secretBytes = (key: ReadTokenKey): Uint8Array<ArrayBuffer> =>
  new TextEncoder().encode(key.secret);

/**
 * 128 random bits, base64url: the token id (jti). Never starting with "-": operators pass it as an argument
 * (`token revoke <token-id>`), where a leading "-" reads as an option (1 id in 64 did).
 */
export function newTokenId(): string {
  for (;;) {
    const id = base64url.encode(crypto.getRandomValues(new Uint8Array(16)));
    if (!id.startsWith('-')) return id;
  }
}

export async function mintReadToken(keys: readonly ReadTokenKey[], input: MintInput): Promise<MintedToken> {
  const key = keys[0];
  if (key === undefined) throw new Error('mintReadToken: no signing key configured');
  const iat = Math.floor(input.now / 1000);
  const exp = iat + input.ttlSeconds;
  const tokenId = newTokenId();
  const payload: ReadTokenPayload = { ws: input.workspaceId, api: input.apiId, rkh: input.rootKeyHash };
  const token = await new SignJWT({ ...payload })
    .setProtectedHeader({ alg: READ_TOKEN_ALGORITHM, kid: key.kid, typ: READ_TOKEN_TYPE })
    .setIssuer(READ_TOKEN_ISSUER)
    .setAudience(READ_TOKEN_AUDIENCE)
    .setSubject(input.externalId)
    .setJti(tokenId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secretBytes(key));
  return {
    token,
    claims: {
      tokenId,
      workspaceId: input.workspaceId,
      apiId: input.apiId,
      externalId: input.externalId,
      rootKeyHash: input.rootKeyHash,
      issuedAt: iat * 1000,
      expiresAt: exp * 1000,
    },
  };
}

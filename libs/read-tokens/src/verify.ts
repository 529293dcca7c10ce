/**
 * Checking a read token: signature by the key its kid names (any configured key: rotation), the
 * algorithm, JOSE type, issuer, audience, expiry (no tolerance) and the shape of every claim.
 * Every failure is one of a few reasons, never an exception: the service answers them all with 401.
 */
import { decodeJwt, errors, jwtVerify, type JWTHeaderParameters } from 'jose';
import { claimsOf, type ReadTokenClaims } from './claims';
import {
  READ_TOKEN_ALGORITHM,
  READ_TOKEN_AUDIENCE,
  READ_TOKEN_ISSUER,
  READ_TOKEN_TYPE,
  type ReadTokenKey,
} from './policy';
import { secretBytes } from './sign';

export type VerifyFailure = 'expired' | 'unknown_key' | 'invalid';
export type VerifyResult = { ok: true; claims: ReadTokenClaims } | { ok: false; reason: VerifyFailure };

/** A JWS compact serialization (three base64url parts). Root keys (`vak_…`) never have dots. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeReadToken = (bearer: string): boolean => JWT_SHAPE.test(bearer);

class UnknownKey extends Error {}

/**
 * Each configured key imported once as a WebCrypto HMAC key. Given the secret's bytes, jose imports them
 * again for every token (`importKey`, about half the CPU of a verification; docs/benchmarks-history.md),
 * and a token is verified often: on every request with it, and before every answer of its live stream.
 * Keyed by the key object, so a new configuration imports its own; a failed import is not kept.
 */
const imported = new WeakMap<ReadTokenKey, Promise<CryptoKey>>();
function cryptoKeyOf(key: ReadTokenKey): Promise<CryptoKey> {
  let found = imported.get(key);
  if (!found) {
    const hmac = { name: 'HMAC', hash: 'SHA-256' };
    found = crypto.subtle.importKey('raw', secretBytes(key), hmac, false, ['verify']);
    found.catch(() => imported.delete(key));
    imported.set(key, found);
  }
  return found;
}

export async function verifyReadToken(
  keys: readonly ReadTokenKey[],
  token: string,
  now: number,
): Promise<VerifyResult> {
  if (!looksLikeReadToken(token)) return { ok: false, reason: 'invalid' };
  const keyOf = (header: JWTHeaderParameters) => {
    const key = keys.find((k) => k.kid === header.kid);
    if (key === undefined) throw new UnknownKey();
    return cryptoKeyOf(key);
  };
  try {
    const { payload } = await jwtVerify(token, keyOf, {
      algorithms: [READ_TOKEN_ALGORITHM],
      issuer: READ_TOKEN_ISSUER,
      audience: READ_TOKEN_AUDIENCE,
      typ: READ_TOKEN_TYPE,
      currentDate: new Date(now),
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
    });
    const claims = claimsOf(payload as Record<string, unknown>);
    return claims === null ? { ok: false, reason: 'invalid' } : { ok: true, claims };
  } catch (error) {
    if (error instanceof UnknownKey) return { ok: false, reason: 'unknown_key' };
    if (error instanceof errors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
}

/**
 * The id and expiry a token claims, without checking its signature: enough to put it on the
 * deny-list (listing a forged id harms nobody; the entry lives at most the longest lifetime).
 */
export function unverifiedTokenId(token: string): { tokenId: string; expiresAt: number } | null {
  if (!looksLikeReadToken(token)) return null;
  try {
    const { jti, exp } = decodeJwt(token);
    if (typeof jti !== 'string' || !/^[A-Za-z0-9_-]{16,64}$/.test(jti) || typeof exp !== 'number')
      return null;
    return { tokenId: jti, expiresAt: exp * 1000 };
  } catch {
    return null;
  }
}

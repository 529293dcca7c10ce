import { SignJWT, base64url, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  READ_TOKEN_AUDIENCE,
  READ_TOKEN_ID_PATTERN,
  READ_TOKEN_ISSUER,
  READ_TOKEN_TYPE,
  canCreateReadToken,
  looksLikeReadToken,
  mintReadToken,
  unverifiedTokenId,
  verifyReadToken,
  type ReadTokenKey,
} from './index';
import { newTokenId } from './sign';

const NOW = Date.UTC(2026, 2, 18, 10, 30, 15, 123);
const K1: ReadTokenKey = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes!!' };
const K2: ReadTokenKey = { kid: 'k2', secret: 'second-secret-of-at-least-32-bytes!' };
const INPUT = {
  workspaceId: 'ws_1',
  apiId: 'api_1',
  externalId: 'alice@example.com',
  rootKeyHash: 'a'.repeat(64),
  now: NOW,
  ttlSeconds: 900,
};

/** A token with the given claims/header, signed like ours (to test each check alone). */
async function forge(over: {
  payload?: Record<string, unknown>;
  header?: Record<string, unknown>;
  secret?: string;
}) {
  const iat = Math.floor(NOW / 1000);
  const payload = {
    iss: READ_TOKEN_ISSUER,
    aud: READ_TOKEN_AUDIENCE,
    sub: 'alice@example.com',
    jti: 'abcdefghijklmnopqrstuv',
    iat,
    exp: iat + 60,
    ws: 'ws_1',
    api: 'api_1',
    rkh: 'a'.repeat(64),
    ...over.payload,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: READ_TOKEN_TYPE, ...over.header })
    .sign(new TextEncoder().encode(over.secret ?? K1.secret));
}

describe('mint and verify', () => {
  it('round-trips the claims; the header names the key', async () => {
    const { token, claims } = await mintReadToken([K1, K2], INPUT);
    expect(claims).toEqual({
      tokenId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      workspaceId: 'ws_1',
      apiId: 'api_1',
      externalId: 'alice@example.com',
      rootKeyHash: 'a'.repeat(64),
      issuedAt: Date.UTC(2026, 2, 18, 10, 30, 15),
      expiresAt: Date.UTC(2026, 2, 18, 10, 45, 15),
    });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', kid: 'k1', typ: READ_TOKEN_TYPE });
    expect(decodeJwt(token)).toMatchObject({
      iss: READ_TOKEN_ISSUER,
      aud: READ_TOKEN_AUDIENCE,
      sub: 'alice@example.com',
    });
    expect(await verifyReadToken([K1, K2], token, NOW)).toEqual({ ok: true, claims });
    expect(looksLikeReadToken(token)).toBe(true);
  });

  it('gives every token its own id', async () => {
    const a = await mintReadToken([K1], INPUT);
    const b = await mintReadToken([K1], INPUT);
    expect(a.claims.tokenId).not.toBe(b.claims.tokenId);
  });

  it('rotation: a token of the second key verifies while that key is configured, not after', async () => {
    const { token } = await mintReadToken([K2, K1], INPUT); // minted when k2 was the signing key
    expect((await verifyReadToken([K1, K2], token, NOW)).ok).toBe(true);
    expect(await verifyReadToken([K1], token, NOW)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it('expires at exp, with no tolerance', async () => {
    const { token, claims } = await mintReadToken([K1], INPUT);
    expect((await verifyReadToken([K1], token, claims.expiresAt - 1000)).ok).toBe(true);
    expect(await verifyReadToken([K1], token, claims.expiresAt)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('refuses', () => {
  it('a wrong signature (same kid, another secret)', async () => {
    const token = await forge({ secret: 'an-attackers-secret-of-32-bytes-or-more' });
    expect(await verifyReadToken([K1], token, NOW)).toEqual({ ok: false, reason: 'invalid' });
    expect((await verifyReadToken([K1], await forge({}), NOW)).ok).toBe(true); // the forge itself is sound
  });

  it('a tampered payload (another externalId or API)', async () => {
    const { token } = await mintReadToken([K1], INPUT);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as Record<string, unknown>;
    for (const change of [{ sub: 'bob@example.com' }, { api: 'api_2' }, { exp: 4_102_444_800 }]) {
      const tampered = base64url.encode(JSON.stringify({ ...claims, ...change }));
      expect(await verifyReadToken([K1], `${header}.${tampered}.${signature}`, NOW)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
  });

  it('another audience, issuer or type', async () => {
    for (const token of [
      await forge({ payload: { aud: 'someone-else' } }),
      await forge({ payload: { iss: 'someone-else' } }),
      await forge({ header: { typ: 'JWT' } }),
    ]) {
      expect(await verifyReadToken([K1], token, NOW)).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('an unknown or missing key id', async () => {
    expect(await verifyReadToken([K1], await forge({ header: { kid: 'k9' } }), NOW)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
    expect(await verifyReadToken([K1], await forge({ header: { kid: undefined } }), NOW)).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
  });

  it('other algorithms, alg none included', async () => {
    const hs512 = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512', kid: 'k1', typ: READ_TOKEN_TYPE })
      .sign(new TextEncoder().encode(K1.secret.repeat(2)));
    const payload = base64url.encode(JSON.stringify({ iss: READ_TOKEN_ISSUER, aud: READ_TOKEN_AUDIENCE }));
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', kid: 'k1', typ: READ_TOKEN_TYPE }))}.${payload}.x`;
    for (const token of [hs512, none]) {
      expect(await verifyReadToken([K1], token, NOW)).toMatchObject({ ok: false });
    }
  });

  it('malformed claims and non-JWT strings', async () => {
    for (const payload of [{ api: 'api 1' }, { ws: 7 }, { rkh: 'short' }, { sub: 'a\u0000b' }]) {
      expect(await verifyReadToken([K1], await forge({ payload }), NOW), JSON.stringify(payload)).toEqual({
        ok: false,
        reason: 'invalid',
      });
    }
    for (const bearer of ['vak_abc', 'a.b', 'a.b.c.d', '']) {
      expect(await verifyReadToken([K1], bearer, NOW)).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(looksLikeReadToken('vak_0123456789abcdefABCDEF')).toBe(false);
  });
});

describe('canCreateReadToken', () => {
  it('accepts the wildcard and the API-specific permission only', () => {
    expect(canCreateReadToken(['api.*.create_read_token'], 'api_1')).toBe(true);
    expect(canCreateReadToken(['api.api_1.create_read_token'], 'api_1')).toBe(true);
    expect(canCreateReadToken(['api.api_2.create_read_token', 'api.*.read_api'], 'api_1')).toBe(false);
  });
});

describe('unverifiedTokenId', () => {
  it('reads id and expiry of a token, null for anything else', async () => {
    const { token, claims } = await mintReadToken([K1], INPUT);
    expect(unverifiedTokenId(token)).toEqual({ tokenId: claims.tokenId, expiresAt: claims.expiresAt });
    expect(unverifiedTokenId('vak_abc')).toBeNull();
    expect(unverifiedTokenId('a.b.c')).toBeNull();
  });
});

describe('token ids', () => {
  it('never start with "-", which the CLI would read as an option (1 random id in 64 does)', () => {
    const ids = Array.from({ length: 2_000 }, () => newTokenId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(READ_TOKEN_ID_PATTERN);
  });
});

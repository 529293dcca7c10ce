/**
 * GET /v1/analytics.getVerifications with end-user read tokens, against the real service and Redis.
 * A token reads its API and its externalId only: every forged, expired, tampered, foreign-key or
 * revoked token is 401 and never data; a valid token asking for another API or externalId is 403.
 */
import { SignJWT, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsClient } from '@va/client';
import type { Datapoint, ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { mintReadToken, type ReadTokenKey } from '@va/read-tokens';
import { denyReadToken, hashRootKey } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/analytics.getVerifications';
const NOW = Date.UTC(2026, 2, 18, 10, 30);
const K1: ReadTokenKey = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes!!' };
const K2: ReadTokenKey = { kid: 'k2', secret: 'second-secret-of-at-least-32-bytes!' };
const ENV = {
  READ_TOKEN_KEYS: `${K1.kid}:${K1.secret},${K2.kid}:${K2.secret}`,
  RETENTION_HOURS_DAYS: '36500',
  RETENTION_DAYS_DAYS: '36500',
  RETENTION_MONTHS_DAYS: '36500',
};
const alice = { id: 'id_alice', externalId: 'alice@example.com' };
const alice2 = { id: 'id_alice_2', externalId: 'alice@example.com' }; // one externalId, two identities
const bob = { id: 'id_bob', externalId: 'bob@example.com' };

let h: QueryHarness;
let rootKey: string;
let minter: string;
let mint: AnalyticsClient;
let aliceToken: string;

const event = (n: number, apiId: string, identity?: VerificationEvent['identity']): VerificationEvent => ({
  requestId: `s${n}`,
  time: NOW - 2 * HOUR_MS,
  workspaceId: 'ws_1',
  apiId,
  keyId: `key_${n % 3}`,
  outcome: 'VALID',
  ...(identity && { identity }),
});

const get = (qs: string, token: string) => h.get(`${PATH}?${qs}`, token);

/** An error answer of this status: the envelope, never an array of datapoints. */
async function refused(qs: string, token: string, status: number) {
  const response = await get(qs, token);
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<ErrorEnvelope>();
  expect(Array.isArray(body)).toBe(false);
  expect(body.error.status).toBe(status);
  expect(response.body).not.toContain('"total"');
  return body.error;
}

/** A token minted with the service's own code and the given key and claims. */
const minted = async (over: Partial<Parameters<typeof mintReadToken>[1]> = {}, keys = [K1]) =>
  (
    await mintReadToken(keys, {
      workspaceId: 'ws_1',
      apiId: 'api_1',
      externalId: alice.externalId,
      rootKeyHash: hashRootKey(minter),
      now: NOW,
      ttlSeconds: 900,
      ...over,
    })
  ).token;

beforeAll(async () => {
  h = await queryHarness('read token security', { now: NOW, env: ENV });
  rootKey = await h.rootKey(['api.*.read_api']);
  minter = await h.rootKey(['api.*.create_read_token']);
  mint = await h.client(minter);
  await h.registerApi('api_2');
  await h.registerApi('api_elsewhere', 'ws_2');
  await h.seed([
    ...[1, 2, 3].map((n) => event(n, 'api_1', alice)),
    event(4, 'api_1', alice2),
    ...[5, 6, 7, 8, 9].map((n) => event(n, 'api_1', bob)),
    event(10, 'api_1'), // anonymous
    event(11, 'api_2', alice),
  ]);
  aliceToken = (await mint.createReadToken({ apiId: 'api_1', externalId: alice.externalId })).token;
});
afterAll(() => h?.close());

describe('a valid read token', () => {
  it("reads its end user's data only: the externalId filter is implied", async () => {
    const client = await h.client(aliceToken);
    const { datapoints } = await client.getVerifications({ apiId: 'api_1', start: NOW - 86_400_000 });
    expect(datapoints).toHaveLength(1);
    expect(datapoints[0]!.total).toBe(4);
    const asRoot = await (
      await h.client(rootKey)
    ).getVerifications({
      apiId: 'api_1',
      start: NOW - 86_400_000,
      externalId: alice.externalId,
    });
    expect(datapoints).toEqual(asRoot.datapoints);
  });

  it('groups by identity within its externalId only, and may name its own externalId', async () => {
    const client = await h.client(aliceToken);
    const byIdentity = await client.getVerifications({
      apiId: 'api_1',
      start: NOW - 86_400_000,
      groupBy: ['identity', 'key'],
    });
    expect(new Set(byIdentity.datapoints.map((d: Datapoint) => d.identity!.externalId))).toEqual(
      new Set([alice.externalId]),
    );
    expect(byIdentity.datapoints.reduce((sum, d) => sum + d.total, 0)).toBe(4);
    const own = await client.getVerifications({
      apiId: 'api_1',
      start: NOW - 86_400_000,
      externalId: alice.externalId,
    });
    expect(own.datapoints[0]!.total).toBe(4);
  });

  it("403 for another externalId, another API of the workspace or an API elsewhere (after 400's check)", async () => {
    const other = await refused('apiId=api_1&externalId=bob%40example.com', aliceToken, 403);
    expect(other.type).toMatch(/\/forbidden$/);
    expect(other.detail).toContain("one end user's data only");
    expect((await refused('apiId=api_2', aliceToken, 403)).detail).toContain('reads the API api_1 only');
    await refused('apiId=api_elsewhere', aliceToken, 403);
    await refused('apiId=api_nowhere', aliceToken, 403);
    // 400 comes first: an invalid query is invalid whoever asks.
    await refused('apiId=api_2&externalId=bob%40example.com&limit=0', aliceToken, 400);
  });
});

describe('401, never data', () => {
  it('an expired token', async () => {
    const expired = await minted({ now: NOW - 3600_000, ttlSeconds: 60 });
    expect((await refused('apiId=api_1', expired, 401)).detail).toContain('expired');
    // The same claims, not yet expired, are accepted: the expiry alone made the difference.
    await expect(
      (await h.client(await minted({ now: NOW - 30_000, ttlSeconds: 60 }))).getVerifications({
        apiId: 'api_1',
      }),
    ).resolves.toBeDefined();
  });

  it('a wrong signature (the right kid, another secret)', async () => {
    const forged = await minted({}, [{ kid: 'k1', secret: 'an-attackers-secret-of-32-bytes-or-more' }]);
    await refused('apiId=api_1', forged, 401);
  });

  it('an unknown key id, and a key retired by rotation', async () => {
    await refused('apiId=api_1', await minted({}, [{ kid: 'k9', secret: K1.secret }]), 401);
    const ofK2 = await minted({}, [K2]);
    expect((await get('apiId=api_1', ofK2)).statusCode).toBe(200);
    const rotated = await queryHarness('read token rotation', {
      now: NOW,
      env: { ...ENV, READ_TOKEN_KEYS: `k3:${'z'.repeat(40)},${K1.kid}:${K1.secret}` },
    });
    try {
      await rotated.registerApi('api_1');
      // Same Redis data is not needed: a token of a retired key fails before any read.
      const response = await rotated.get(`${PATH}?apiId=api_1`, ofK2);
      expect(response.statusCode).toBe(401);
      expect(response.json<ErrorEnvelope>().error.detail).toContain(
        'signed with a key this service does not have',
      );
    } finally {
      await rotated.close();
    }
  });

  it('a tampered externalId or API (payload edited, signature kept)', async () => {
    const [header, payload, signature] = aliceToken.split('.') as [string, string, string];
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as Record<string, unknown>;
    for (const change of [{ sub: bob.externalId }, { api: 'api_2' }, { ws: 'ws_2' }]) {
      const edited = `${header}.${base64url.encode(JSON.stringify({ ...claims, ...change }))}.${signature}`;
      await refused(`apiId=${String(change.api ?? 'api_1')}`, edited, 401);
    }
  });

  it('a wrong audience, issuer or type, and alg none', async () => {
    const iat = Math.floor(NOW / 1000);
    const base = {
      iss: 'verification-analytics',
      aud: 'va:getVerifications',
      sub: alice.externalId,
      jti: 'abcdefghijklmnopqrstuv',
      iat,
      exp: iat + 600,
      ws: 'ws_1',
      api: 'api_1',
      rkh: hashRootKey(minter),
    };
    const sign = (payload: object, typ = 'va-read+jwt') =>
      new SignJWT({ ...base, ...payload })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ })
        .sign(new TextEncoder().encode(K1.secret));
    expect((await get('apiId=api_1', await sign({}))).statusCode).toBe(200); // the forge is sound
    await refused('apiId=api_1', await sign({ aud: 'another-service' }), 401);
    await refused('apiId=api_1', await sign({ iss: 'someone-else' }), 401);
    await refused('apiId=api_1', await sign({}, 'JWT'), 401);
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', kid: 'k1', typ: 'va-read+jwt' }))}.${base64url.encode(JSON.stringify(base))}.`;
    await refused('apiId=api_1', none, 401);
  });

  it('a token on the deny-list, and every token of a revoked root key', async () => {
    const minted1 = await mint.createReadToken({ apiId: 'api_1', externalId: alice.externalId });
    expect((await get('apiId=api_1', minted1.token)).statusCode).toBe(200);
    expect(await denyReadToken(h.redis, h.config.keyPrefix, minted1, NOW)).toBe(true);
    expect((await refused('apiId=api_1', minted1.token, 401)).detail).toContain('revoked');
    expect(await h.redis.pttl(`${h.config.keyPrefix}:rtdeny:${minted1.tokenId}`)).toBeGreaterThan(0); // goes with the token

    const shortLived = await h.rootKey(['api.*.create_read_token']);
    const token = (await (await h.client(shortLived)).createReadToken({ apiId: 'api_1', externalId: 'x' }))
      .token;
    expect((await get('apiId=api_1', token)).statusCode).toBe(200);
    await h.revoke(shortLived);
    await refused('apiId=api_1', token, 401);
  });

  it('401 comes before 400', async () => {
    await refused('apiId=api_1&limit=0&bogus=1', await minted({ now: NOW - 3600_000, ttlSeconds: 60 }), 401);
  });
});

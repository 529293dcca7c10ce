/**
 * The revocation delay of the auth cache (docs/api.md#auth): with the caches on (QUERY_AUTH_CACHE_MS
 * at its default, 1000), a revoked root key, and a read token put on the deny-list, are refused (401)
 * within that delay, by a service that answered them from its cache just before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { mintReadToken, type ReadTokenKey } from '@va/read-tokens';
import { denyReadToken, hashRootKey, revokeRootKeyByHash } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/analytics.getVerifications?apiId=api_1';
const K1: ReadTokenKey = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes!!' };
/** The documented delay (the default of QUERY_AUTH_CACHE_MS). */
const DELAY_MS = 1_000;
/** Polling interval. */
const POLL_MS = 25;
/** When to give up waiting for the 401 (far beyond the delay: the assertion below is the real check). */
const GIVE_UP_MS = 10 * DELAY_MS;

let h: QueryHarness;
let hgetalls = 0;

const event = (n: number): VerificationEvent => ({
  requestId: `rv${n}`,
  time: Date.now() - 2 * HOUR_MS,
  workspaceId: 'ws_1',
  apiId: 'api_1',
  keyId: `key_${n % 3}`,
  outcome: 'VALID',
});

beforeAll(async () => {
  h = await queryHarness('revocation delay', {
    now: Date.now(),
    env: { QUERY_AUTH_CACHE_MS: String(DELAY_MS), READ_TOKEN_KEYS: `${K1.kid}:${K1.secret}` },
  });
  await h.seed([event(1), event(2)]);
  // Counts the root-key reads the service sends (the harness's service uses this client).
  const send = h.redis.sendCommand.bind(h.redis);
  h.redis.sendCommand = ((command, stream) => {
    if (command.name === 'hgetall') hgetalls++;
    return send(command, stream);
  }) as typeof h.redis.sendCommand;
});
afterAll(() => h.close());

/**
 * Asks until the answer is 401, and checks the delay by when each request was sent, not by how long
 * it took (a loaded machine may take long to answer, which says nothing of the cache): a request sent
 * DELAY_MS or more after `since` (performance.now, taken before the revocation) must not be answered
 * from the cache. Fails on a 200 sent that late, or when no 401 comes at all.
 */
async function expectRefusedWithinDelay(token: string, since: number): Promise<void> {
  for (;;) {
    const sentAt = performance.now();
    const response = await h.get(PATH, token);
    if (response.statusCode === 401) {
      expect(response.json<ErrorEnvelope>().error.detail).toContain('revoked');
      return;
    }
    expect(response.statusCode, response.body).toBe(200);
    expect(sentAt - since, 'a request sent after the delay was answered from the cache').toBeLessThan(
      DELAY_MS,
    );
    expect(performance.now() - since, 'no 401 came').toBeLessThan(GIVE_UP_MS);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

describe('#40 revocation delay: with the caches on', () => {
  it('a revoked root key is refused within the documented delay', async () => {
    const key = await h.rootKey();
    expect((await h.get(PATH, key)).statusCode).toBe(200);
    const reads = hgetalls;
    expect((await h.get(PATH, key)).statusCode).toBe(200);
    expect(hgetalls, 'the second request is authenticated from the cache').toBe(reads);

    const since = performance.now();
    expect(await revokeRootKeyByHash(h.redis, h.config.keyPrefix, hashRootKey(key), Date.now())).toBe(
      'revoked',
    );
    await expectRefusedWithinDelay(key, since);
  });

  it('a read token on the deny-list is refused within the documented delay', async () => {
    const minter = await h.rootKey(['api.*.create_read_token']);
    const {
      token,
      claims: { tokenId },
    } = await mintReadToken([K1], {
      workspaceId: 'ws_1',
      apiId: 'api_1',
      externalId: 'alice@example.com',
      rootKeyHash: hashRootKey(minter),
      now: h.now,
      ttlSeconds: 900,
    });
    expect((await h.get(PATH, token)).statusCode).toBe(200);
    const since = performance.now();
    await denyReadToken(h.redis, h.config.keyPrefix, { tokenId, expiresAt: h.now + 900_000 }, h.now);
    await expectRefusedWithinDelay(token, since);
  });

  it('a read token of a revoked root key is refused within the documented delay', async () => {
    const minter = await h.rootKey(['api.*.create_read_token']);
    const { token } = await mintReadToken([K1], {
      workspaceId: 'ws_1',
      apiId: 'api_1',
      externalId: 'bob@example.com',
      rootKeyHash: hashRootKey(minter),
      now: h.now,
      ttlSeconds: 900,
    });
    expect((await h.get(PATH, token)).statusCode).toBe(200);
    const since = performance.now();
    await revokeRootKeyByHash(h.redis, h.config.keyPrefix, hashRootKey(minter), Date.now());
    await expectRefusedWithinDelay(token, since);
  });
});

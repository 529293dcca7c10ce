/**
 * End-user read tokens end to end: events through Kafka and the real ingest worker, the query service
 * as its own process configured by READ_TOKEN_KEYS (two keys: rotation), a token minted over HTTP by a
 * root key with api.*.create_read_token and used through the typed client. The end user sees their own
 * counts, equal to the root key's answer for their externalId; other end users' data never appears.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiError } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { startStack, type Stack } from './stack';
import { scaled } from '@va/testkit/time';

const KEYS = 'k2:e2e-second-secret-at-least-32-bytes,k1:e2e-first-secret-at-least-32-bytes!!';
const now = Date.now();
const people = [
  { id: 'id_alice', externalId: 'alice@example.com' },
  { id: 'id_bob', externalId: 'bob@example.com' },
  { id: 'id_carol', externalId: 'carol' },
];
const events: VerificationEvent[] = Array.from({ length: 60 }, (_, n) => ({
  requestId: `rt_${n}`,
  time: now - (n % 5) * 3_600_000,
  workspaceId: 'ws_1',
  apiId: n % 10 === 9 ? 'api_other' : 'api_main',
  keyId: `key_${n % 4}`,
  outcome: n % 7 === 0 ? 'RATE_LIMITED' : 'VALID',
  ...(n % 6 !== 5 && { identity: people[n % 3]! }),
}));

let stack: Stack;
let rootKey: string;

beforeAll(async () => {
  stack = await startStack('e2e read token', { READ_TOKEN_KEYS: KEYS });
  rootKey = await stack.rootKey(['api.*.read_api', 'api.*.create_read_token']);
  await stack.produce(events);
  for (const apiId of ['api_main', 'api_other']) {
    await stack.waitForTotal(apiId, events.filter((e) => e.apiId === apiId).length, rootKey);
  }
}, scaled(300_000));
afterAll(() => stack?.stop());

it("a read token shows its end user's counts and nothing of anyone else's", async () => {
  const root = stack.client(rootKey);
  const minted = await root.createReadToken({
    apiId: 'api_main',
    externalId: 'alice@example.com',
    expiresIn: 600,
  });
  expect(minted.expiresAt).toBeGreaterThan(now);
  const alice = stack.client(minted.token);

  const query = { apiId: 'api_main', start: now - 86_400_000, groupBy: ['identity', 'key', 'hour'] } as const;
  const seen = await alice.getVerifications({ ...query, groupBy: [...query.groupBy] });
  const expected = await root.getVerifications({
    ...query,
    groupBy: [...query.groupBy],
    externalId: 'alice@example.com',
  });
  expect(seen.datapoints).toEqual(expected.datapoints);
  const withData = seen.datapoints.filter((d) => d.total > 0);
  expect(withData.length).toBeGreaterThan(0);
  expect(new Set(withData.map((d) => d.identity!.externalId))).toEqual(new Set(['alice@example.com']));
  const aliceEvents = events.filter(
    (e) => e.apiId === 'api_main' && e.identity?.externalId === 'alice@example.com',
  );
  expect(withData.reduce((sum, d) => sum + d.total, 0)).toBe(aliceEvents.length);

  for (const params of [{ apiId: 'api_main', externalId: 'bob@example.com' }, { apiId: 'api_other' }]) {
    const error = await alice.getVerifications(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, kind: 'forbidden' });
  }
});

it('every token of a revoked root key is 401 within the revocation delay (QUERY_AUTH_CACHE_MS, 1 s)', async () => {
  const minter = await stack.rootKey(['api.*.create_read_token']);
  const token = (await stack.client(minter).createReadToken({ apiId: 'api_main', externalId: 'carol' }))
    .token;
  expect((await stack.get('apiId=api_main', token)).status).toBe(200);
  const revokedAt = performance.now();
  await stack.revokeRootKey(minter);
  // The service may answer from its auth cache until the delay is over; never data after it.
  let refused = await stack.get('apiId=api_main', token);
  while (refused.status === 200 && performance.now() - revokedAt < 1_000 + scaled(500)) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    refused = await stack.get('apiId=api_main', token);
  }
  expect(refused.status).toBe(401);
  expect(Array.isArray(refused.body)).toBe(false);
});

/**
 * Auth and limits of GET /v1/apis.list (#45): every refusal is an error envelope without a list, in the
 * order 401 -> 400 -> 429; a root key never sees another workspace's APIs, a read token nothing beyond
 * its own API, also when its minting root key could read more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { mintReadToken } from '@va/read-tokens';
import { hashRootKey } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/apis.list';
const K1 = { kid: 'k1', secret: 'first-secret-of-at-least-32-bytes!!' };
let h: QueryHarness;
let key: string;

async function refused(response: Awaited<ReturnType<QueryHarness['get']>>, status: number, kind: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<ErrorEnvelope>();
  expect(body.error.status).toBe(status);
  expect(body.error.type).toBe(`${h.config.docsUrl}/${kind}`);
  expect(body.meta.requestId).toBe(response.headers['x-request-id']);
  expect(response.body).not.toContain('api_');
  return body.error;
}

beforeAll(async () => {
  h = await queryHarness('apis list security', {
    env: { READ_TOKEN_KEYS: `${K1.kid}:${K1.secret}`, QUERY_RATE_LIMIT: '3', QUERY_RATE_WINDOW_MS: '60000' },
  });
  await h.registerApi('api_1', 'ws_1');
  await h.registerApi('api_2', 'ws_1');
  await h.registerApi('api_other', 'ws_2');
  key = await h.rootKey(['api.*.read_api'], 'ws_1');
});
afterAll(() => h?.close());

describe('401 unauthorized', () => {
  it.each([undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b'])(
    'with the header %j',
    async (authorization) => {
      await refused(
        await h.get(PATH, undefined, authorization === undefined ? {} : { authorization }),
        401,
        'unauthorized',
      );
    },
  );

  it('with an unknown or revoked root key', async () => {
    await refused(await h.get(PATH, 'vak_unknownunknownunknownunknown12'), 401, 'unauthorized');
    const doomed = await h.rootKey();
    await h.revoke(doomed);
    await refused(await h.get(PATH, doomed), 401, 'unauthorized');
  });

  it('with a read token that is forged, or whose root key was revoked', async () => {
    const claims = { workspaceId: 'ws_1', apiId: 'api_1', externalId: 'e', now: h.now, ttlSeconds: 600 };
    const forged = await mintReadToken([{ kid: 'k1', secret: 'another-secret-of-at-least-32-bytes' }], {
      ...claims,
      rootKeyHash: hashRootKey(key),
    });
    await refused(await h.get(PATH, forged.token), 401, 'unauthorized');
    const doomed = await h.rootKey(['api.*.create_read_token']);
    const orphan = await mintReadToken([K1], { ...claims, rootKeyHash: hashRootKey(doomed) });
    await h.revoke(doomed);
    await refused(await h.get(PATH, orphan.token), 401, 'unauthorized');
  });

  it('before a bad query string is looked at', async () => {
    await refused(await h.get(`${PATH}?workspaceId=ws_2`), 401, 'unauthorized');
  });
});

describe('scope', () => {
  it('a root key asking for another workspace gets 400, never its APIs', async () => {
    const error = await refused(await h.get(`${PATH}?workspaceId=ws_2`, key), 400, 'invalid_input');
    expect(error.errors.map((e) => e.location)).toEqual(['query.workspaceId']);
  });

  it("a read token lists its own API only, though its root key reads the workspace's all", async () => {
    const minter = await h.rootKey(['api.*.read_api', 'api.*.create_read_token']);
    const token = await mintReadToken([K1], {
      workspaceId: 'ws_1',
      apiId: 'api_2',
      externalId: 'e',
      rootKeyHash: hashRootKey(minter),
      now: h.now,
      ttlSeconds: 600,
    });
    const response = await h.get(PATH, token.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ apis: [{ apiId: 'api_2' }] });
  });
});

describe('429 too_many_requests', () => {
  it('counts against the root key rate limit like a query, with Retry-After', async () => {
    const limited = await h.rootKey(['api.*.read_api'], 'ws_1');
    for (let i = 0; i < 3; i++) expect((await h.get(PATH, limited)).statusCode).toBe(200);
    const response = await h.get(PATH, limited);
    await refused(response, 429, 'too_many_requests');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  });
});

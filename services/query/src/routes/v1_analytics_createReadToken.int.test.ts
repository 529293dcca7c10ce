/**
 * POST /v1/analytics.createReadToken against the real service and Redis: minting (default and
 * asked-for lifetimes), the error order 401 -> 400 -> 403 -> 404 with envelopes, the permission,
 * and the service without signing keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { ApiError, type AnalyticsClient } from '@va/client';
import type { ErrorEnvelope } from '@va/contracts';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/analytics.createReadToken';
const NOW = Date.UTC(2026, 2, 18, 10, 30, 0, 500);
const KEYS = 'k2:second-secret-of-at-least-32-bytes!,k1:first-secret-of-at-least-32-bytes!!';

let h: QueryHarness;
let minter: string;

const post = (body: unknown, key?: string, contentType = 'application/json') =>
  h.app.inject({
    method: 'POST',
    url: PATH,
    headers: {
      ...(key !== undefined && { authorization: `Bearer ${key}` }),
      ...(body !== undefined && { 'content-type': contentType }),
    },
    ...(body !== undefined && { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

const failure = async (response: Awaited<ReturnType<typeof post>>, status: number) => {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json<ErrorEnvelope>();
  expect(body.meta.requestId).toBe(response.headers['x-request-id']);
  expect(body.error.status).toBe(status);
  return body.error;
};

beforeAll(async () => {
  h = await queryHarness('create read token', { now: NOW, env: { READ_TOKEN_KEYS: KEYS } });
  minter = await h.rootKey(['api.*.create_read_token']);
  await h.registerApi('api_1');
  await h.registerApi('api_elsewhere', 'ws_2');
});
afterAll(() => h?.close());

describe('minting', () => {
  let client: AnalyticsClient;
  beforeAll(async () => {
    client = await h.client(minter);
  });

  it('answers a token for the API and externalId, 15 minutes by default, signed by the first key', async () => {
    const minted = await client.createReadToken({ apiId: 'api_1', externalId: 'alice@example.com' });
    const iat = Math.floor(NOW / 1000);
    expect(minted).toEqual({
      token: expect.any(String),
      tokenId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      apiId: 'api_1',
      externalId: 'alice@example.com',
      expiresAt: (iat + 900) * 1000,
    });
    expect(decodeProtectedHeader(minted.token)).toEqual({ alg: 'HS256', kid: 'k2', typ: 'va-read+jwt' });
    expect(decodeJwt(minted.token)).toMatchObject({
      iss: 'verification-analytics',
      aud: 'va:getVerifications',
      sub: 'alice@example.com',
      jti: minted.tokenId,
      ws: 'ws_1',
      api: 'api_1',
      iat,
      exp: iat + 900,
    });
  });

  it('takes expiresIn up to 24 hours, with the API-specific permission too', async () => {
    const specific = await h.client(await h.rootKey(['api.api_1.create_read_token']));
    const minted = await specific.createReadToken({ apiId: 'api_1', externalId: 'x', expiresIn: 86_400 });
    expect(minted.expiresAt).toBe((Math.floor(NOW / 1000) + 86_400) * 1000);
  });

  it('is not cached', async () => {
    const response = await post({ apiId: 'api_1', externalId: 'a' }, minter);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
  });
});

describe('errors, in the contract order', () => {
  it('401 without a valid root key, before the body is looked at', async () => {
    expect((await failure(await post(undefined), 401)).type).toMatch(/\/unauthorized$/);
    await failure(await post({ apiId: 'api 1' }, 'vak_unknown'), 401);
    await failure(await post('{not json', 'vak_unknown'), 401);
    const revoked = await h.rootKey(['api.*.create_read_token']);
    await h.revoke(revoked);
    await failure(await post({ apiId: 'api_1', externalId: 'a' }, revoked), 401);
  });

  it('400 with one errors[] entry per field', async () => {
    const error = await failure(await post({ apiId: 'api 1', expiresIn: 86_401, extra: 1 }, minter), 400);
    expect(error.type).toMatch(/\/invalid_input$/);
    expect(error.errors).toHaveLength(4); // in no particular order
    expect(error.errors).toEqual(
      expect.arrayContaining([
        {
          location: 'body.extra',
          message: 'is not a field of this request',
          fix: 'Send only apiId, externalId, expiresIn.',
        },
        { location: 'body.apiId', message: 'must be 1–255 characters of A-Z a-z 0-9 _ - . :' },
        { location: 'body.externalId', message: 'is required' },
        { location: 'body.expiresIn', message: 'must be less or equal to 86400' },
      ]),
    );
    for (const expiresIn of [0, 1.5, '60']) {
      const e = await failure(await post({ apiId: 'api_1', externalId: 'a', expiresIn }, minter), 400);
      expect(e.errors.map((x) => x.location)).toEqual(['body.expiresIn']);
    }
    expect((await failure(await post('{not json', minter), 400)).type).toMatch(/\/invalid_input$/);
    expect((await failure(await post(undefined, minter), 400)).errors).toEqual([
      expect.objectContaining({ location: 'body' }),
    ]);
  });

  it('403 without the permission (also when the body names another API), and for a read token', async () => {
    const reader = await h.rootKey(['api.*.read_api', 'api.api_2.create_read_token']);
    const error = await failure(await post({ apiId: 'api_1', externalId: 'a' }, reader), 403);
    expect(error.detail).toContain('api.*.create_read_token or api.api_1.create_read_token');
    await failure(await post({ apiId: 'api_elsewhere', externalId: 'a' }, reader), 403);

    const readToken = (await (await h.client(minter)).createReadToken({ apiId: 'api_1', externalId: 'a' }))
      .token;
    expect((await failure(await post({ apiId: 'api_1', externalId: 'a' }, readToken), 403)).detail).toContain(
      'A read token cannot create read tokens',
    );
  });

  it('404 for an API of another workspace or none, the same answer', async () => {
    const a = await failure(await post({ apiId: 'api_elsewhere', externalId: 'a' }, minter), 404);
    const b = await failure(await post({ apiId: 'api_nowhere', externalId: 'a' }, minter), 404);
    expect(a.detail.replace('api_elsewhere', 'X')).toBe(b.detail.replace('api_nowhere', 'X'));
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await h.get('/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    expect(doc.paths[PATH]?.post).toMatchObject({
      operationId: 'createReadToken',
      requestBody: {
        content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateReadTokenRequest' } } },
      },
    });
  });
});

describe('a service without READ_TOKEN_KEYS', () => {
  it('refuses to mint (403) and refuses every read token (401)', async () => {
    const off = await queryHarness('read tokens off', { now: NOW });
    try {
      const key = await off.rootKey(['api.*.create_read_token']);
      await off.registerApi('api_1');
      const client = await off.client(key);
      const error = await client
        .createReadToken({ apiId: 'api_1', externalId: 'a' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 403, kind: 'forbidden' });
      expect((error as ApiError).detail).toContain('switched off');

      const token = (await (await h.client(minter)).createReadToken({ apiId: 'api_1', externalId: 'a' }))
        .token;
      const response = await off.get('/v1/analytics.getVerifications?apiId=api_1', token);
      expect(response.statusCode).toBe(401);
    } finally {
      await off.close();
    }
  });
});

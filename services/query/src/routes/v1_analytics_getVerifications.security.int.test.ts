/**
 * Auth of GET /v1/analytics.getVerifications (docs/api.md#auth): every outcome with its status and
 * envelope, in the order of docs/api.md#errors: 401 -> 400 -> 403 -> 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { queryHarness, type QueryHarness } from '../testing/harness';

let h: QueryHarness;
let key: string;
const PATH = '/v1/analytics.getVerifications';

beforeAll(async () => {
  h = await queryHarness('query security');
  await h.registerApi('api_1', 'ws_1');
  await h.registerApi('api_2', 'ws_1');
  await h.registerApi('api_other', 'ws_2');
  await h.seed([
    {
      requestId: 'r1',
      time: h.now - 3_600_000,
      workspaceId: 'ws_1',
      apiId: 'api_1',
      keyId: 'k1',
      outcome: 'VALID',
    },
    {
      requestId: 'r2',
      time: h.now - 3_600_000,
      workspaceId: 'ws_2',
      apiId: 'api_other',
      keyId: 'k',
      outcome: 'VALID',
    },
  ]);
  key = await h.rootKey(['api.*.read_api'], 'ws_1');
});
afterAll(() => h.close());

function expectEnvelope(response: Awaited<ReturnType<QueryHarness['get']>>, status: number, kind: string) {
  expect(response.statusCode).toBe(status);
  const body = response.json<ErrorEnvelope>();
  expect(body.error.status).toBe(status);
  expect(body.error.type).toBe(`${h.config.docsUrl}/${kind}`);
  expect(typeof body.error.title).toBe('string');
  expect(typeof body.error.detail).toBe('string');
  expect(Array.isArray(body.error.errors)).toBe(true);
  expect(body.meta.requestId).toMatch(/^req_[0-9a-f]{24}$/);
  expect(response.headers['x-request-id']).toBe(body.meta.requestId);
  expect(response.body).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  return body;
}

describe('401 unauthorized', () => {
  it('without an Authorization header', async () => {
    expectEnvelope(await h.get(`${PATH}?apiId=api_1`), 401, 'unauthorized');
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'vak_abc', 'Bearer a b', 'Token vak_abc'])(
    'with a malformed header %j',
    async (authorization) => {
      expectEnvelope(await h.get(`${PATH}?apiId=api_1`, undefined, { authorization }), 401, 'unauthorized');
    },
  );

  it('with an unknown key', async () => {
    expectEnvelope(
      await h.get(`${PATH}?apiId=api_1`, 'vak_unknownunknownunknownunknown12'),
      401,
      'unauthorized',
    );
  });

  it('with a revoked key, from the next request on', async () => {
    const doomed = await h.rootKey();
    expect((await h.get(`${PATH}?apiId=api_1`, doomed)).statusCode).toBe(200);
    await h.revoke(doomed);
    expectEnvelope(await h.get(`${PATH}?apiId=api_1`, doomed), 401, 'unauthorized');
  });

  it('before validation: an invalid query without a valid key is 401, not 400', async () => {
    expectEnvelope(await h.get(`${PATH}?limit=0`), 401, 'unauthorized');
    expectEnvelope(await h.get(`${PATH}?limit=0`, 'vak_nope'), 401, 'unauthorized');
  });
});

describe('403 forbidden', () => {
  it('when the key lacks the read permission; the detail names it', async () => {
    const weak = await h.rootKey(['api.*.create_key']);
    const body = expectEnvelope(await h.get(`${PATH}?apiId=api_1`, weak), 403, 'forbidden');
    expect(body.error.detail).toContain('api.*.read_api');
    expect(body.error.detail).toContain('api.api_1.read_api');
  });

  it('when the key may read another API only', async () => {
    const other = await h.rootKey(['api.api_2.read_api']);
    expectEnvelope(await h.get(`${PATH}?apiId=api_1`, other), 403, 'forbidden');
  });

  it('after validation: an invalid query with a weak key is 400', async () => {
    const weak = await h.rootKey([]);
    expectEnvelope(await h.get(`${PATH}?apiId=api_1&limit=0`, weak), 400, 'invalid_input');
  });
});

describe('404 not_found', () => {
  it('for an API of another workspace and for an API nobody has, with the same answer', async () => {
    const elsewhere = expectEnvelope(await h.get(`${PATH}?apiId=api_other`, key), 404, 'not_found');
    const nowhere = expectEnvelope(await h.get(`${PATH}?apiId=api_nowhere`, key), 404, 'not_found');
    expect(elsewhere.error.detail.replace('api_other', 'X')).toBe(
      nowhere.error.detail.replace('api_nowhere', 'X'),
    );
  });

  it('comes after 403', async () => {
    const other = await h.rootKey(['api.api_1.read_api']);
    expectEnvelope(await h.get(`${PATH}?apiId=api_other`, other), 403, 'forbidden');
  });
});

describe('200', () => {
  it('with api.*.read_api', async () => {
    const response = await h.get(`${PATH}?apiId=api_1`, key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([expect.objectContaining({ valid: 1, total: 1 })]);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
  });

  it('with api.<apiId>.read_api', async () => {
    const specific = await h.rootKey(['api.api_1.read_api']);
    expect((await h.get(`${PATH}?apiId=api_1`, specific)).statusCode).toBe(200);
  });

  it('for a registered API without events: one all-zero row', async () => {
    const response = await h.get(`${PATH}?apiId=api_2`, key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([expect.objectContaining({ valid: 0, total: 0 })]);
  });

  it('never lets another workspace key read the data', async () => {
    const ws2 = await h.rootKey(['api.*.read_api'], 'ws_2');
    expect((await h.get(`${PATH}?apiId=api_1`, ws2)).statusCode).toBe(404);
    expect((await h.get(`${PATH}?apiId=api_other`, ws2)).json()).toEqual([
      expect.objectContaining({ total: 1 }),
    ]);
  });
});

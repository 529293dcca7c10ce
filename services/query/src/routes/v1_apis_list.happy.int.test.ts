/**
 * GET /v1/apis.list against the real service and Redis (#45: the dashboard offers the APIs instead of
 * asking for an apiId): a root key lists the APIs of its workspace that it may read, registered by an
 * operator or by their first events; a read token lists its one API; through @va/client too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApisFromEvents } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/apis.list';
const KEYS = 'k1:first-secret-of-at-least-32-bytes!!';
let h: QueryHarness;

const list = async (token: string) => {
  const response = await h.get(PATH, token);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  return response.json<{ apis: { apiId: string }[] }>().apis.map((a) => a.apiId);
};

beforeAll(async () => {
  h = await queryHarness('apis list', { env: { READ_TOKEN_KEYS: KEYS } });
  await h.registerApi('api_b', 'ws_1');
  await h.registerApi('api_a', 'ws_1');
  await h.registerApi('api_elsewhere', 'ws_2');
  // An API first seen in events, as the ingest worker registers it.
  await registerApisFromEvents(h.redis, h.config.keyPrefix, [{ apiId: 'api_c', workspaceId: 'ws_1' }]);
});
afterAll(() => h?.close());

describe('GET /v1/apis.list', () => {
  it("lists every API of the root key's workspace with api.*.read_api, sorted", async () => {
    expect(await list(await h.rootKey(['api.*.read_api'], 'ws_1'))).toEqual(['api_a', 'api_b', 'api_c']);
    expect(await list(await h.rootKey(['api.*.read_api'], 'ws_2'))).toEqual(['api_elsewhere']);
  });

  it('lists only the APIs named by api.<apiId>.read_api, and only those of its workspace', async () => {
    const key = await h.rootKey(['api.api_b.read_api', 'api.api_elsewhere.read_api', 'api.api_c.create_key']);
    expect(await list(key)).toEqual(['api_b']);
  });

  it('is empty for a root key without a read permission, and for a workspace without APIs', async () => {
    expect(await list(await h.rootKey(['api.*.create_read_token']))).toEqual([]);
    expect(await list(await h.rootKey(['api.*.read_api'], 'ws_empty'))).toEqual([]);
  });

  it('lists a new API from its registration on', async () => {
    const key = await h.rootKey(['api.*.read_api'], 'ws_3');
    expect(await list(key)).toEqual([]);
    await h.registerApi('api_new', 'ws_3');
    expect(await list(key)).toEqual(['api_new']);
  });

  it("gives a read token its one API, and answers @va/client's listApis", async () => {
    const minter = await h.client(await h.rootKey(['api.*.create_read_token']));
    const { token } = await minter.createReadToken({ apiId: 'api_b', externalId: 'alice' });
    expect(await list(token)).toEqual(['api_b']);
    expect(await (await h.client(token)).listApis()).toEqual({ apis: [{ apiId: 'api_b' }] });
  });
});

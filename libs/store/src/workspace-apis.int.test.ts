import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisTarget } from '@va/testkit/support';
import { connectTarget, deletePrefix } from './testing';
import { registerApisFromEvents } from './api-registration';
import type { RedisClient } from './connection';
import { globalKeys } from './keys';
import { registerApi } from './registry';
import { workspaceApis } from './workspace-apis';

const base = `t-wsapis-${Math.random().toString(36).slice(2, 8)}`;
let n = 0;
const freshPrefix = () => `${base}-${++n}`;
let redis: RedisClient;
beforeAll(() => {
  redis = connectTarget(testRedisTarget());
});
afterAll(async () => {
  for (let i = 1; i <= n; i++) await deletePrefix(testRedisTarget(), `${base}-${i}`);
  redis.disconnect();
});

describe('workspaceApis (#45 item: the APIs a credential may pick)', () => {
  it('lists the APIs each workspace owns, registered by an operator or by their first events', async () => {
    const prefix = freshPrefix();
    expect(await workspaceApis(redis, prefix, 'ws_1')).toEqual([]); // a new store: nothing to index
    await registerApi(redis, prefix, 'api_b', 'ws_1');
    await registerApi(redis, prefix, 'api_x', 'ws_2');
    expect(await registerApi(redis, prefix, 'api_x', 'ws_1')).toEqual({ ok: false, owner: 'ws_2' });
    // Events claim api_a and api_x for ws_1: api_x stays ws_2's, and is listed there only.
    expect(
      await registerApisFromEvents(redis, prefix, [
        { apiId: 'api_a', workspaceId: 'ws_1' },
        { apiId: 'api_x', workspaceId: 'ws_1' },
      ]),
    ).toEqual(['ws_1', 'ws_2']);
    expect(await workspaceApis(redis, prefix, 'ws_1')).toEqual(['api_a', 'api_b']);
    expect(await workspaceApis(redis, prefix, 'ws_2')).toEqual(['api_x']);
    expect(await workspaceApis(redis, prefix, 'ws_none')).toEqual([]);
  });

  it('indexes a store written before the workspace sets existed, once, on the first listing', async () => {
    const prefix = freshPrefix();
    const keys = globalKeys(prefix);
    // What registration wrote before: the owner and <p>:apis, no workspace set, no marker.
    for (const [apiId, ws] of [
      ['api_old1', 'ws_1'],
      ['api_old2', 'ws_1'],
      ['api_old3', 'ws_2'],
    ] as const) {
      await redis.set(keys.api(apiId), ws);
      await redis.sadd(keys.apis, apiId);
    }
    await redis.sadd(keys.apis, 'api_ownerless'); // a half-done registration has no owner: not listed
    expect(await redis.exists(keys.workspaceApisIndexed)).toBe(0);
    expect(await workspaceApis(redis, prefix, 'ws_1')).toEqual(['api_old1', 'api_old2']);
    expect(await redis.exists(keys.workspaceApisIndexed)).toBe(1);
    expect(await workspaceApis(redis, prefix, 'ws_2')).toEqual(['api_old3']);
    // Once indexed, the sets are the truth: new registrations keep them up to date.
    await registerApi(redis, prefix, 'api_new', 'ws_2');
    expect(await workspaceApis(redis, prefix, 'ws_2')).toEqual(['api_new', 'api_old3']);
  });
});

import { describe, expect, it } from 'vitest';
import { keysMatching } from './testing';
import { globalKeys } from './keys';
import { fileRedis } from './testing/file-redis';
import { denyReadToken } from './read-token-access';
import {
  apiTimeZone,
  createRootKey,
  findRootKey,
  generateRootKey,
  hashRootKey,
  readAuthRecords,
  registerApi,
  revokeRootKey,
  setApiTimeZone,
} from './registry';

const db = fileRedis('registry');
const { prefix } = db;

describe('root keys', () => {
  it('look like vak_ + 32 base62 characters and never repeat', () => {
    const keys = Array.from({ length: 1000 }, generateRootKey);
    for (const key of keys) expect(key).toMatch(/^vak_[0-9A-Za-z]{32}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('are stored only as a SHA-256 hash, with workspace, permissions and creation time', async () => {
    const { key, hash } = await createRootKey(db.redis, prefix, {
      workspaceId: 'ws_1',
      permissions: ['api.*.read_api', 'api.*.read_api', 'api.a.read_api'],
      now: 1234,
    });
    expect(hash).toBe(hashRootKey(key));
    const stored = await db.redis.hgetall(globalKeys(prefix).rootKey(hash));
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(await keysMatching(db.redis, `${prefix}*${key}*`)).toEqual([]);
    expect(await findRootKey(db.redis, prefix, key)).toEqual({
      workspaceId: 'ws_1',
      permissions: ['api.*.read_api', 'api.a.read_api'],
      createdAt: 1234,
    });
    expect(await findRootKey(db.redis, prefix, `${key}x`)).toBeNull();
  });

  it('are revoked once; the first revocation time stays', async () => {
    const { key } = await createRootKey(db.redis, prefix, { workspaceId: 'ws_1', permissions: [], now: 1 });
    expect(await revokeRootKey(db.redis, prefix, key, 10)).toBe('revoked');
    expect(await revokeRootKey(db.redis, prefix, key, 20)).toBe('already_revoked');
    expect((await findRootKey(db.redis, prefix, key))?.revokedAt).toBe(10);
    expect(await revokeRootKey(db.redis, prefix, 'vak_unknown', 30)).toBe('unknown');
    expect(await db.redis.exists(globalKeys(prefix).rootKey(hashRootKey('vak_unknown')))).toBe(0);
  });
});

describe('APIs', () => {
  it('register once to one workspace, idempotently, and are listed', async () => {
    expect(await registerApi(db.redis, prefix, 'api_r', 'ws_1')).toEqual({ ok: true, created: true });
    expect(await registerApi(db.redis, prefix, 'api_r', 'ws_1')).toEqual({ ok: true, created: false });
    expect(await registerApi(db.redis, prefix, 'api_r', 'ws_2')).toEqual({ ok: false, owner: 'ws_1' });
    expect(await db.redis.sismember(globalKeys(prefix).apis, 'api_r')).toBe(1);
  });

  it('have a default time zone: UTC until set at registration or changed; another workspace cannot set it', async () => {
    await registerApi(db.redis, prefix, 'api_tz', 'ws_1');
    expect(await apiTimeZone(db.redis, prefix, 'api_tz')).toBe('UTC');
    const opts = { timeZone: 'America/New_York' };
    expect(await registerApi(db.redis, prefix, 'api_tz', 'ws_1', opts)).toEqual({ ok: true, created: false });
    expect(await apiTimeZone(db.redis, prefix, 'api_tz')).toBe('America/New_York');
    expect(await registerApi(db.redis, prefix, 'api_tz', 'ws_2', { timeZone: 'Asia/Kolkata' })).toEqual({
      ok: false,
      owner: 'ws_1',
    });
    expect(await apiTimeZone(db.redis, prefix, 'api_tz')).toBe('America/New_York');
    expect(await setApiTimeZone(db.redis, prefix, 'api_tz', 'Asia/Kolkata')).toEqual({
      ok: true,
      previous: 'America/New_York',
    });
    expect(await apiTimeZone(db.redis, prefix, 'api_tz')).toBe('Asia/Kolkata');
    expect(await registerApi(db.redis, prefix, 'api_tz2', 'ws_1', { timeZone: 'Asia/Kolkata' })).toEqual({
      ok: true,
      created: true,
    });
    expect(await apiTimeZone(db.redis, prefix, 'api_tz2')).toBe('Asia/Kolkata');
    // An API nobody registered has no zone to change.
    expect(await setApiTimeZone(db.redis, prefix, 'api_tz_none', 'Asia/Kolkata')).toEqual({ ok: false });
    expect(await db.redis.exists(globalKeys(prefix).apiTimeZone('api_tz_none'))).toBe(0);
  });

  it('readAuthRecords returns the records asked for in one round trip', async () => {
    const { key, hash } = await createRootKey(db.redis, prefix, {
      workspaceId: 'ws_1',
      permissions: ['p'],
      now: 5,
    });
    await registerApi(db.redis, prefix, 'api_ra', 'ws_9');
    expect(await readAuthRecords(db.redis, prefix, { rootKeyHash: hash, apiId: 'api_ra' })).toEqual({
      rootKey: { workspaceId: 'ws_1', permissions: ['p'], createdAt: 5 },
      apiWorkspace: 'ws_9',
      apiTimeZone: null,
      apiBillingZones: [],
    });
    await setApiTimeZone(db.redis, prefix, 'api_ra', 'Asia/Kolkata');
    expect(await readAuthRecords(db.redis, prefix, { apiId: 'api_ra' })).toEqual({
      apiWorkspace: 'ws_9',
      apiTimeZone: 'Asia/Kolkata',
      apiBillingZones: [],
    });
    await denyReadToken(db.redis, prefix, { tokenId: 'tok_1', expiresAt: Date.now() + 60_000 }, Date.now());
    expect(
      await readAuthRecords(db.redis, prefix, {
        rootKeyHash: hashRootKey('vak_nope'),
        deniedTokenId: 'tok_1',
      }),
    ).toEqual({ rootKey: null, denied: true });
    expect(await readAuthRecords(db.redis, prefix, { deniedTokenId: 'tok_2', apiId: 'api_none' })).toEqual({
      denied: false,
      apiWorkspace: null,
      apiTimeZone: null,
      apiBillingZones: [],
    });
    expect(key.startsWith('vak_')).toBe(true);
  });
});

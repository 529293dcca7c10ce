/**
 * `api register --time-zone` and `api update --time-zone` (docs/api.md#time-zones) as the compiled CLI runs
 * them against the test Redis: the zone is set at registration or later, spelled as the zone database spells
 * it; an API nobody registered has no zone to change (exit 1). Unknown zones: time-zone-option.test.ts.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { apiTimeZone, apiWorkspace } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const prefix = `t-cli-api-${Math.random().toString(36).slice(2, 8)}`;
const env = { PATH: process.env.PATH ?? '', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix };
let redis: Redis;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(async () => {
  await deletePrefix(inject('redisUrl'), prefix);
  redis.disconnect();
});

it('sets the default time zone at registration or later; an unregistered API has none to change', async () => {
  const registered = await runCli(
    ['api', 'register', '--workspace', 'ws_cli', '--api', 'api_tz', '--time-zone', 'america/new_york'],
    env,
  );
  expect(registered.code, registered.stderr).toBe(0);
  expect(registered.stdout).toBe('registered api_tz in ws_cli, time zone America/New_York\n');
  expect(await apiWorkspace(redis, prefix, 'api_tz')).toBe('ws_cli');
  expect(await apiTimeZone(redis, prefix, 'api_tz')).toBe('America/New_York');

  const updated = await runCli(['api', 'update', '--api', 'api_tz', '--time-zone', 'Asia/Kolkata'], env);
  expect(updated.code, updated.stderr).toBe(0);
  expect(updated.stdout).toBe('api_tz: time zone Asia/Kolkata (was America/New_York)\n');
  expect(await apiTimeZone(redis, prefix, 'api_tz')).toBe('Asia/Kolkata');

  // Registering again without --time-zone leaves the zone alone.
  expect((await runCli(['api', 'register', '--workspace', 'ws_cli', '--api', 'api_tz'], env)).code).toBe(0);
  expect(await apiTimeZone(redis, prefix, 'api_tz')).toBe('Asia/Kolkata');

  const unknown = await runCli(['api', 'update', '--api', 'api_nobody', '--time-zone', 'Asia/Kolkata'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('api_nobody is not registered');
  expect(await apiTimeZone(redis, prefix, 'api_nobody')).toBe('UTC');
}, 120_000);

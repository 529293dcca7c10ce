/**
 * `api register|update --billing-zone` (docs/api.md#billing-zones) as the compiled CLI runs them against the
 * test Redis: zones are appended in order (zone number = position), a zone declared again keeps its number,
 * a fourth is refused (exit 1), an unknown one exits 2 like --time-zone, and update needs a registered API.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { apiTimeZone, billingZonesOf, declareBillingZone } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const prefix = `t-cli-bz-${Math.random().toString(36).slice(2, 8)}`;
const env = { PATH: process.env.PATH ?? '', REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix };
let redis: Redis;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(async () => {
  await deletePrefix(inject('redisUrl'), prefix);
  redis.disconnect();
});

it('declares billing zones at registration or later, in order, at most three', async () => {
  const registered = await runCli(
    ['api', 'register', '--workspace', 'ws_cli', '--api', 'api_bz', '--billing-zone', 'Asia/Kolkata'],
    env,
  );
  expect(registered.code, registered.stderr).toBe(0);
  expect(registered.stdout).toBe(
    'registered api_bz in ws_cli\napi_bz: billing zone 1 Asia/Kolkata declared\n',
  );

  const updated = await runCli(
    [
      'api',
      'update',
      '--api',
      'api_bz',
      '--billing-zone',
      'america/new_york',
      '--billing-zone',
      'asia/kolkata',
    ],
    env,
  );
  expect(updated.code, updated.stderr).toBe(0);
  expect(updated.stdout).toBe(
    'api_bz: billing zone 2 America/New_York declared\napi_bz: billing zone 1 Asia/Kolkata already declared\n',
  );
  expect(await billingZonesOf(redis, prefix, 'api_bz')).toEqual(['Asia/Kolkata', 'America/New_York']);

  // Both options at once: the default zone, then the billing zones.
  const both = await runCli(
    ['api', 'update', '--api', 'api_bz', '--time-zone', 'Europe/Berlin', '--billing-zone', 'Europe/Berlin'],
    env,
  );
  expect(both.code, both.stderr).toBe(0);
  expect(both.stdout).toBe(
    'api_bz: time zone Europe/Berlin (was UTC)\napi_bz: billing zone 3 Europe/Berlin declared\n',
  );
  expect(await apiTimeZone(redis, prefix, 'api_bz')).toBe('Europe/Berlin');

  const full = await runCli(['api', 'update', '--api', 'api_bz', '--billing-zone', 'Asia/Tokyo'], env);
  expect(full.code).toBe(1);
  expect(full.stderr).toContain('already has 3 billing zones; Asia/Tokyo not declared');
  expect(await billingZonesOf(redis, prefix, 'api_bz')).toEqual([
    'Asia/Kolkata',
    'America/New_York',
    'Europe/Berlin',
  ]);

  const unknown = await runCli(['api', 'update', '--api', 'api_bz', '--billing-zone', 'Mars/Olympus'], env);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('--billing-zone');

  const neither = await runCli(['api', 'update', '--api', 'api_bz'], env);
  expect(neither.code).toBe(2);

  const nobody = await runCli(
    ['api', 'update', '--api', 'api_nobody', '--billing-zone', 'Asia/Kolkata'],
    env,
  );
  expect(nobody.code).toBe(1);
  expect(nobody.stderr).toContain('api_nobody is not registered');
  expect(await billingZonesOf(redis, prefix, 'api_nobody')).toEqual([]);
}, 120_000);

it('concurrent declarations neither duplicate a zone nor pass three', async () => {
  const zones = ['Asia/Kolkata', 'America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Asia/Kolkata'];
  const results = await Promise.all(
    [...zones, ...zones].map((zone) => declareBillingZone(redis, prefix, 'api_race', zone)),
  );
  const listed = await billingZonesOf(redis, prefix, 'api_race');
  expect(listed).toHaveLength(3);
  expect(new Set(listed).size).toBe(3);
  expect(results.filter((r) => 'added' in r && r.added)).toHaveLength(3);
  for (const r of results) if ('n' in r) expect(listed[r.n - 1]).toBeDefined();
});

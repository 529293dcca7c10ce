/**
 * `npm run cli -- alerts …` as operators run it (real child processes) against the real query service
 * and the test Redis: a rule and an endpoint are created, listed and deleted; the endpoint's secret is
 * printed alone on stdout's first line; the delivery log is read; a replay queues a crossing's webhook
 * again for the endpoint subscribed to its rule. A rule's zone is the one given, else the API's default zone
 * at its creation (`api update --time-zone`), and stays the rule's.
 */
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { loadConfig } from '@va/config';
import { createServer } from '@va/query';
import { appendCrossing, appendDeliveryAttempt, createRootKey, globalKeys, registerApi } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const prefix = `t-cli-alerts-${Math.random().toString(36).slice(2, 8)}`;
const config = loadConfig({
  REDIS_URL: inject('redisUrl'),
  REDIS_KEY_PREFIX: prefix,
  QUERY_AUTH_CACHE_MS: '0',
  QUERY_WORKERS: '0',
});
let redis: Redis;
let app: Awaited<ReturnType<typeof createServer>>;
let env: Record<string, string>;

beforeAll(async () => {
  redis = new Redis(config.redisUrl);
  app = await createServer({ redis, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  await registerApi(redis, prefix, 'api_cli', 'ws_cli');
  const { key } = await createRootKey(redis, prefix, {
    workspaceId: 'ws_cli',
    permissions: ['api.*.manage_alerts'],
    now: Date.now(),
  });
  env = {
    PATH: process.env.PATH ?? '',
    QUERY_URL: `http://127.0.0.1:${port}`,
    ANALYTICS_TOKEN: key,
    REDIS_URL: config.redisUrl,
    REDIS_KEY_PREFIX: prefix,
  };
});
afterAll(async () => {
  await app?.close();
  await deletePrefix(config.redisUrl, prefix);
  redis?.disconnect();
});

const ok = async (args: string[]) => {
  const run = await runCli(['alerts', ...args], env);
  expect(run.code, run.stderr).toBe(0);
  return run;
};

it('creates, lists and deletes rules and endpoints; prints the secret once; reads deliveries; replays', async () => {
  const created = await ok([
    'rules',
    'create',
    '--api',
    'api_cli',
    '--scope',
    'each-identity',
    '--period',
    'month',
    '--level',
    '100,10',
    '--outcome',
    'VALID',
    '--json',
  ]);
  const rule = JSON.parse(created.stdout) as { ruleId: string; levels: number[] };
  expect(rule.levels).toEqual([10, 100]);
  const listed = await ok(['rules', 'list', '--api', 'api_cli']);
  expect(listed.stdout).toBe(`${rule.ruleId}  eachIdentity  month UTC  levels 10,100  outcomes VALID\n`);

  const endpoint = await ok(['endpoints', 'create', 'https://hooks.example.com/x', '--rule', rule.ruleId]);
  const secret = endpoint.stdout.split('\n')[0]!;
  expect(secret).toMatch(/^whsec_/);
  const endpointId = /endpoint (ep_[0-9a-f]{24})/.exec(endpoint.stderr)![1]!;
  const endpoints = await ok(['endpoints', 'list']);
  expect(endpoints.stdout).toBe(`${endpointId}  https://hooks.example.com/x  ${rule.ruleId}\n`);
  expect(endpoints.stdout).not.toContain(secret);

  await appendDeliveryAttempt(redis, prefix, 'api_cli', {
    alertId: 'c'.repeat(24),
    endpointId,
    attempt: 1,
    outcome: 'failed',
    status: 503,
    error: 'HTTP 503',
    at: Date.parse('2028-01-01T00:00:00Z'),
    durationMs: 4,
  });
  const deliveries = await ok(['deliveries', '--api', 'api_cli']);
  expect(deliveries.stdout).toBe(
    `2028-01-01T00:00:00.000Z  ${'c'.repeat(24)}  ${endpointId}  attempt 1  failed  HTTP 503  HTTP 503\n`,
  );

  await appendCrossing(redis, prefix, 'api_cli', {
    ruleId: rule.ruleId,
    member: 'acme',
    period: 'month',
    periodStart: Date.parse('2028-01-01T00:00:00Z'),
    level: 10,
    count: 10,
    detectedAt: Date.now(),
  });
  const replayed = await ok(['replay', '--api', 'api_cli', '--since', '0']);
  expect(replayed.stderr).toContain('1 crossing(s) found, 1 webhook(s) queued');
  // No delivery process runs here: the replayed job waits in BullMQ's list of waiting jobs.
  expect(await redis.llen(`${globalKeys(prefix).bull}:alert-delivery:wait`)).toBe(1);

  await ok(['endpoints', 'delete', endpointId]);
  await ok(['rules', 'delete', '--api', 'api_cli', '--rule', rule.ruleId]);
  expect((await ok(['rules', 'list', '--api', 'api_cli'])).stdout).toBe('');
  const missing = await runCli(['alerts', 'rules', 'delete', '--api', 'api_cli', '--rule', rule.ruleId], env);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('404');
});

it('refuses a key as an argument, a scope without its member, and a replay without a selection', async () => {
  const argument = await runCli(['alerts', 'endpoints', 'list', '--token', 'vak_x'], env);
  expect(argument.code).toBe(2);
  const scope = await runCli(
    ['alerts', 'rules', 'create', '--api', 'a', '--scope', 'identity', '--period', 'day', '--level', '1'],
    env,
  );
  expect(scope.code).toBe(2);
  expect(scope.stderr).toContain('--scope identity needs --external-id');
  const replay = await runCli(['alerts', 'replay', '--api', 'api_cli'], env);
  expect(replay.code).toBe(2);
});

// An unknown zone is refused before anything is read: time-zone-option.test.ts.
it("keeps on each rule the zone given, else the API's default zone when it was created", async () => {
  const create = (...more: string[]) =>
    ok([
      'rules',
      'create',
      '--api',
      'api_cli',
      '--scope',
      'api',
      '--period',
      'day',
      '--level',
      '5',
      '--json',
      ...more,
    ]);
  const zoneOf = async (run: Promise<{ stdout: string }>) =>
    (JSON.parse((await run).stdout) as { timeZone: string }).timeZone;
  expect(await zoneOf(create())).toBe('UTC');
  const updated = await runCli(['api', 'update', '--api', 'api_cli', '--time-zone', 'America/New_York'], env);
  expect(updated.code, updated.stderr).toBe(0);
  expect(updated.stdout).toBe('api_cli: time zone America/New_York (was UTC)\n');
  expect(await zoneOf(create())).toBe('America/New_York');
  expect(await zoneOf(create('--time-zone', 'Asia/Kolkata'))).toBe('Asia/Kolkata');
  const zones = (await ok(['rules', 'list', '--api', 'api_cli'])).stdout
    .split('\n')
    .map((l) => l.split('  ')[2]);
  expect(zones.filter(Boolean)).toEqual(['day UTC', 'day America/New_York', 'day Asia/Kolkata']);
  // The API's zone moves on; the rules keep theirs.
  await runCli(['api', 'update', '--api', 'api_cli', '--time-zone', 'UTC'], env);
  expect((await ok(['rules', 'list', '--api', 'api_cli'])).stdout).toContain('day America/New_York');
});

/**
 * `npm run cli -- token create|revoke` as operators run them (real child processes) against the real
 * query service (createServer on a free port) and the test Redis: the minted token reads through
 * `query`, and once revoked it gets 401.
 */
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, inject } from 'vitest';
import { loadConfig } from '@va/config';
import { createServer } from '@va/query';
import { createRootKey, registerApi } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const prefix = `t-cli-token-${Math.random().toString(36).slice(2, 8)}`;
const config = loadConfig({
  REDIS_URL: inject('redisUrl'),
  REDIS_KEY_PREFIX: prefix,
  READ_TOKEN_KEYS: 'k1:a-secret-for-the-cli-test-of-32-bytes',
  // A revocation refused at once: the auth cache's delay is tested in services/query (revocation.int.test.ts).
  QUERY_AUTH_CACHE_MS: '0',
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
    permissions: ['api.*.create_read_token'],
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

it('create prints a read token that queries, revoke makes it 401', async () => {
  const created = await runCli(
    ['token', 'create', '--api', 'api_cli', '--external-id', 'alice', '--expires-in', '600'],
    env,
  );
  expect(created.code, created.stderr).toBe(0);
  const token = created.stdout.split('\n')[0]!;
  expect(decodeJwt(token)).toMatchObject({ sub: 'alice', api: 'api_cli' });
  expect(created.stderr).toMatch(/read token \S+ for api_cli \/ alice, expires /);

  const read = await runCli(['query', '--api', 'api_cli'], { ...env, ANALYTICS_TOKEN: token });
  expect(read.code, read.stderr).toBe(0);
  expect(JSON.parse(read.stdout)).toEqual([expect.objectContaining({ total: 0 })]);

  const revoked = await runCli(['token', 'revoke', decodeJwt(token).jti!], env);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(revoked.stderr).toContain('revoked');

  const refused = await runCli(['query', '--api', 'api_cli'], { ...env, ANALYTICS_TOKEN: token });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('401 Unauthorized: The read token has been revoked.');
});

it('create with an unknown root key reports the 401; missing options are usage errors', async () => {
  const other = await runCli(['token', 'create', '--api', 'api_cli', '--external-id', 'a'], {
    ...env,
    ANALYTICS_TOKEN: 'vak_unknown',
  });
  expect(other.code).toBe(1);
  expect(other.stderr).toContain('401');
  const usage = await runCli(['token', 'create', '--api', 'api_cli'], env);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("required option '--external-id <id>' not specified");
});

/**
 * `npm run cli -- query …` as operators run it (a real child process), against the real query
 * service (createServer on a free port, the test Redis): JSON datapoints on stdout, the envelope's
 * detail and request id on stderr for an error answer, usage errors with exit code 2.
 */
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '@va/config';
import { createServer } from '@va/query';
import { createRootKey, registerApi } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const prefix = `t-cli-query-${Math.random().toString(36).slice(2, 8)}`;
const config = loadConfig({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix });
let redis: Redis;
let app: Awaited<ReturnType<typeof createServer>>;
let env: Record<string, string>;
let key: string;

beforeAll(async () => {
  redis = new Redis(config.redisUrl);
  app = await createServer({ redis, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  await registerApi(redis, prefix, 'api_cli', 'ws_cli');
  key = (
    await createRootKey(redis, prefix, {
      workspaceId: 'ws_cli',
      permissions: ['api.*.read_api'],
      now: Date.now(),
    })
  ).key;
  env = { PATH: process.env.PATH ?? '', QUERY_URL: `http://127.0.0.1:${port}`, ANALYTICS_TOKEN: key };
});
afterAll(async () => {
  await app?.close();
  await deletePrefix(config.redisUrl, prefix);
  redis?.disconnect();
});

describe('query', () => {
  it('prints the datapoints as JSON', async () => {
    const result = await runCli(
      ['query', '--api', 'api_cli', '--start', '2026-01-01', '--group-by', 'key'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]); // no events yet: no key groups
    expect(result.stderr).toMatch(/0 datapoints, precision hour, req_/);

    const totals = await runCli(['query', '--api', 'api_cli'], env);
    expect(totals.code, totals.stderr).toBe(0);
    expect(JSON.parse(totals.stdout)).toEqual([expect.objectContaining({ total: 0, valid: 0 })]);
  });

  it('reports an error answer with its detail and request id, exit code 1', async () => {
    const result = await runCli(['query', '--api', 'api_elsewhere'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('404 Not Found: The API api_elsewhere does not exist');
    expect(result.stderr).toMatch(/request id: req_[0-9a-f]+/);
  });

  it('refuses bad options before asking, exit code 2', async () => {
    const missing = await runCli(['query', '--start', '2026-01-01'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--api <apiId>' not specified");
    const badTime = await runCli(['query', '--api', 'a', '--start', 'yesterday'], env);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain(
      "option '--start <time>' argument 'yesterday' is invalid. expected unix ms or an ISO 8601 time",
    );
    const noToken = await runCli(['query', '--api', 'a'], { ...env, ANALYTICS_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('ANALYTICS_TOKEN');
  });
});

/**
 * #39 item 7: key material stays off command lines (ps, shell history) and out of messages. The CLI
 * takes root keys and read tokens from ANALYTICS_TOKEN or stdin, revokes read tokens and root keys by
 * id, and no message shows the password of REDIS_URL. Real CLI processes, the real query service
 * (createServer on a free port) and the test Redis.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { loadConfig } from '@va/config';
import { ROOT } from '@va/infra/paths';
import { createServer } from '@va/query';
import { createRootKey, findRootKey, registerApi } from '@va/store';
import { deletePrefix } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

const PASSWORD = 'planted-Pw-39-x7Qk2';
const prefix = `t-cli-secrets-${Math.random().toString(36).slice(2, 8)}`;
const config = loadConfig({
  REDIS_URL: inject('redisUrl'),
  REDIS_KEY_PREFIX: prefix,
  READ_TOKEN_KEYS: 'k1:a-secret-for-the-cli-secrets-test-32b',
  // A revocation refused at once: the auth cache's delay is tested in services/query (revocation.int.test.ts).
  QUERY_AUTH_CACHE_MS: '0',
});
let redis: Redis;
let app: Awaited<ReturnType<typeof createServer>>;
let env: Record<string, string>;
let rootKey: string;

beforeAll(async () => {
  redis = new Redis(config.redisUrl);
  app = await createServer({ redis, config });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  await registerApi(redis, prefix, 'api_cli', 'ws_cli');
  rootKey = (
    await createRootKey(redis, prefix, {
      workspaceId: 'ws_cli',
      permissions: ['api.*.create_read_token', 'api.*.read_api'],
      now: Date.now(),
    })
  ).key;
  env = {
    PATH: process.env.PATH ?? '',
    QUERY_URL: `http://127.0.0.1:${port}`,
    REDIS_URL: config.redisUrl,
    REDIS_KEY_PREFIX: prefix,
  };
});
afterAll(async () => {
  await app?.close();
  await deletePrefix(config.redisUrl, prefix);
  redis?.disconnect();
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('#39 item 7: key material where it leaks', () => {
  it('no CLI message shows the password planted in REDIS_URL', async () => {
    const port = await closedPort();
    for (const [url, shown] of [
      [`redis://:${PASSWORD}@127.0.0.1:${port}`, `redis://:***@127.0.0.1:${port}`],
      [`redis://default:${PASSWORD}@127.0.0.1:${port}/0`, `redis://default:***@127.0.0.1:${port}/0`],
    ] as const) {
      const planted = { ...env, REDIS_URL: url };
      for (const args of [
        ['root-key', 'create', '--workspace', 'ws_cli', '--permission', 'api.*.read_api'],
        ['root-key', 'revoke', 'f'.repeat(64)],
        ['api', 'register', '--workspace', 'ws_cli', '--api', 'api_x'],
        ['token', 'revoke', 'A'.repeat(22)],
        ['rebuild', 'status'],
      ]) {
        const result = await runCli(args, planted);
        expect(result.code, args.join(' ')).not.toBe(0);
        expect(result.stdout + result.stderr, args.join(' ')).not.toContain(PASSWORD);
        expect(result.stderr, args.join(' ')).toContain(`cannot reach Redis at ${shown}`);
      }
    }
  });

  it('no message quoting another URL shows its password either (the CLI filters all of stderr)', async () => {
    // The HTTP client's own error quotes the URL it refused (one with credentials).
    const result = await runCli(['query', '--api', 'api_cli', '--url', `http://u:${PASSWORD}@127.0.0.1:1`], {
      ...env,
      ANALYTICS_TOKEN: rootKey,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('http://u:***@127.0.0.1:1/');
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('npm run stack -- status names an external REDIS_URL, never its value', async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['infra/stack.mjs', 'status'], {
      cwd: ROOT,
      env: { PATH: env.PATH!, KAFKA_BROKERS: '127.0.0.1:1', REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:1` },
    });
    expect(stdout + stderr).not.toContain(PASSWORD);
    expect(stdout).toMatch(/^redis {2}external {2}REDIS_URL \(not shown/m);
  });

  it('refuses a secret as an argument, without echoing it; ANALYTICS_TOKEN and --token-stdin carry it', async () => {
    const asArgument = await runCli(['query', '--api', 'api_cli', '--token', rootKey], env);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toMatch(/--token .*(shell history|process list)/);
    expect(asArgument.stderr + asArgument.stdout).not.toContain(rootKey);

    const fromEnv = await runCli(['query', '--api', 'api_cli'], { ...env, ANALYTICS_TOKEN: rootKey });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const fromStdin = await runCli(['query', '--api', 'api_cli', '--token-stdin'], env, `${rootKey}\n`);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toEqual(JSON.parse(fromEnv.stdout));
    const emptyStdin = await runCli(['query', '--api', 'api_cli', '--token-stdin'], env, '');
    expect(emptyStdin.code).toBe(2);

    const created = await runCli(
      ['token', 'create', '--api', 'api_cli', '--external-id', 'alice', '--token-stdin'],
      env,
      rootKey,
    );
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.split('\n')[0]!;
    expect(decodeJwt(token)).toMatchObject({ sub: 'alice', api: 'api_cli' });
    const mintAsArgument = await runCli(
      ['token', 'create', '--api', 'api_cli', '--external-id', 'alice', '--token', rootKey],
      env,
    );
    expect(mintAsArgument.code).toBe(2);
    expect(mintAsArgument.stderr).not.toContain(rootKey);
  });

  it('revokes a read token by its id; the token itself is refused as an argument', async () => {
    const created = await runCli(['token', 'create', '--api', 'api_cli', '--external-id', 'bob'], {
      ...env,
      ANALYTICS_TOKEN: rootKey,
    });
    expect(created.code, created.stderr).toBe(0);
    const token = created.stdout.split('\n')[0]!;
    const tokenId = decodeJwt(token).jti!;
    expect(created.stderr).toContain(tokenId);

    const asArgument = await runCli(['token', 'revoke', token], env);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).not.toContain(token);
    expect(asArgument.stderr).toMatch(/token id/);

    const revoked = await runCli(['token', 'revoke', tokenId], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`read token ${tokenId} revoked`);
    const refused = await runCli(['query', '--api', 'api_cli'], { ...env, ANALYTICS_TOKEN: token });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401 Unauthorized: The read token has been revoked.');
  });

  it('revokes a root key by its id or from stdin, never as an argument', async () => {
    const { key } = await createRootKey(redis, prefix, {
      workspaceId: 'ws_cli',
      permissions: ['api.*.read_api'],
      now: Date.now(),
    });
    const asArgument = await runCli(['root-key', 'revoke', key], env);
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).not.toContain(key);
    expect((await findRootKey(redis, prefix, key))?.revokedAt).toBeUndefined();
    const fromStdin = await runCli(['root-key', 'revoke', '--key-stdin'], env, `${key}\n`);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect((await findRootKey(redis, prefix, key))?.revokedAt).toEqual(expect.any(Number));
  });
});

/**
 * The operator CLI (README "Operations"), run as operators run it: `npm run cli -- root-key create ...`
 * prints the key alone on the first line of stdout; `root-key revoke <key id>`; `api register`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { apiWorkspace, findRootKey, hashRootKey } from '@va/store';
import { ROOT } from '@va/infra/paths';
import { deletePrefix } from '@va/store/testing';

const run = promisify(execFile);
const prefix = `t-cli-${Math.random().toString(36).slice(2, 8)}`;
const env = { ...process.env, REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: prefix };
let redis: Redis;

/** `npm run cli -- <args>` in the repository root; resolves with exit code and output. */
async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run('npm', ['run', 'cli', '--', ...args], { cwd: ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(async () => {
  await deletePrefix(inject('redisUrl'), prefix);
  redis.disconnect();
});

describe('root-key', () => {
  it('create prints the new key alone on the first line of stdout and stores its hash', async () => {
    const result = await cli(
      'root-key',
      'create',
      '--workspace',
      'ws_cli',
      '--permission',
      'api.*.read_api',
      '--permission',
      'api.a.read_api',
    );
    expect(result.code, result.stderr).toBe(0);
    const key = result.stdout.split('\n')[0]!;
    expect(key).toMatch(/^vak_[0-9A-Za-z]{32}$/);
    expect(await findRootKey(redis, prefix, key)).toMatchObject({
      workspaceId: 'ws_cli',
      permissions: ['api.*.read_api', 'api.a.read_api'],
    });

    const revoked = await cli('root-key', 'revoke', hashRootKey(key));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await findRootKey(redis, prefix, key))?.revokedAt).toEqual(expect.any(Number));
  }, 60_000);

  it('revokes by the key id printed at creation (stderr), keeping the secret off the command line', async () => {
    const created = await cli(
      'root-key',
      'create',
      '--workspace',
      'ws_cli',
      '--permission',
      'api.*.read_api',
    );
    expect(created.code, created.stderr).toBe(0);
    const [key, ...rest] = created.stdout.split('\n');
    expect(key).toMatch(/^vak_[0-9A-Za-z]{32}$/);
    expect(rest.join('')).toBe(''); // the key stays alone on stdout
    const id = /key id: ([0-9a-f]{64})/.exec(created.stderr)?.[1];
    expect(id, created.stderr).toBe(hashRootKey(key!)); // the stored hash: not the secret
    expect(created.stderr).not.toContain(key!);

    const revoked = await cli('root-key', 'revoke', id!);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(/^revoked/m);
    expect((await findRootKey(redis, prefix, key!))?.revokedAt).toEqual(expect.any(Number));
    expect((await cli('root-key', 'revoke', id!)).stderr).toMatch(/already revoked/);
    const unknown = await cli('root-key', 'revoke', 'f'.repeat(64));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no such key/);
  }, 120_000);

  it('refuses bad input with a usage message and a non-zero exit', async () => {
    for (const args of [
      ['root-key', 'create', '--workspace', 'ws'],
      ['root-key', 'create', '--permission', 'p'],
      ['root-key', 'create', '--workspace', 'a b', '--permission', 'p'],
      ['root-key', 'create', '--workspace', 'ws', '--permission', 'p', '--bogus'],
      ['root-key', 'revoke'],
      ['root-key', 'revoke', 'vak_unknown'],
      ['root-key'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stdout).not.toMatch(/^vak_[0-9A-Za-z]{32}$/m);
    }
  }, 120_000);
});

describe('api register', () => {
  it('registers an API to a workspace, idempotently, never moving it', async () => {
    expect((await cli('api', 'register', '--workspace', 'ws_cli', '--api', 'api_cli')).code).toBe(0);
    expect(await apiWorkspace(redis, prefix, 'api_cli')).toBe('ws_cli');
    expect((await cli('api', 'register', '--workspace', 'ws_cli', '--api', 'api_cli')).code).toBe(0);
    const moved = await cli('api', 'register', '--workspace', 'ws_other', '--api', 'api_cli');
    expect(moved.code).not.toBe(0);
    expect(await apiWorkspace(redis, prefix, 'api_cli')).toBe('ws_cli');
    expect((await cli('api', 'register', '--workspace', 'ws_cli', '--api', 'a}{b')).code).not.toBe(0);
  }, 60_000);
});

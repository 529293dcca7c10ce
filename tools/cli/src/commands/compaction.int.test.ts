/** `npm run cli -- compaction status`, run as operators run it, against a prepared Redis. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { hourOf } from '@va/core';
import { apiKeys, globalKeys } from '@va/store';
import { ROOT } from '@va/infra/paths';
import { deletePrefix } from '@va/store/testing';

const run = promisify(execFile);
const prefix = `t-cli-cmp-${Math.random().toString(36).slice(2, 8)}`;
// A fixed clock: 2027-03-10 12:30 UTC, grace 5 minutes -> closed through 11:00.
const NOW = Date.parse('2027-03-10T12:30:00Z');
const env = {
  ...process.env,
  REDIS_URL: inject('redisUrl'),
  REDIS_KEY_PREFIX: prefix,
  FIXED_NOW_MS: String(NOW),
  COMPACTION_GRACE_MS: '300000',
};
let redis: Redis;

async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '-s', 'cli', '--', ...args], { cwd: ROOT, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  const space = { prefix, generation: 1 };
  await redis.sadd(globalKeys(prefix).apis, 'api_done', 'api_waiting');
  const h = hourOf(NOW);
  await redis.set(apiKeys(space, 'api_done').compactedThrough, String(h - 1));
  await redis.set(apiKeys(space, 'api_waiting').compactedThrough, String(h - 10));
  // Hours with data after cmp: 3 closed (h-9, h-5, h-1) and the open hour h.
  for (const hour of [h - 12, h - 9, h - 5, h - 1, h]) {
    await redis.zadd(apiKeys(space, 'api_waiting').bucketIndex('h'), hour, hour);
  }
});
afterAll(async () => {
  await deletePrefix(inject('redisUrl'), prefix);
  redis.disconnect();
});

describe('compaction status', () => {
  it('prints per API the compacted-through hour and the closed hours waiting, and the queue counts', async () => {
    const result = await cli('compaction', 'status');
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toBe('generation 1, closed through 2027-03-10T11:00:00.000Z');
    expect(lines[1]).toBe('queue compaction: waiting 0, active 0, delayed 0, failed 0');
    expect(lines.slice(3)).toEqual([
      'api_done     2027-03-10T11:00:00.000Z  0',
      'api_waiting  2027-03-10T02:00:00.000Z  3',
    ]);
  });

  it('--api and --json narrow and structure the report', async () => {
    const result = await cli('compaction', 'status', '--api', 'api_waiting', '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { apis: unknown[]; closedBound: number };
    expect(report.closedBound).toBe(hourOf(NOW) - 1);
    expect(report.apis).toEqual([
      { apiId: 'api_waiting', compactedThrough: hourOf(NOW) - 10, waitingHours: 3 },
    ]);
    const never = await cli('compaction', 'status', '--api', 'api_unknown');
    expect(never.stdout).toContain('api_unknown  never');
  });

  it('refuses bad arguments with exit code 2', async () => {
    expect((await cli('compaction', 'status', '--api', 'a b')).code).toBe(2);
    expect((await cli('compaction', 'nope')).code).toBe(2);
  });
});

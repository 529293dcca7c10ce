// The README's quick start, run as written: its code block is read from README.md (so the test fails
// when the README drifts) and run by bash against this test's servers. Only where things are differs:
// the environment points at the test's Kafka topics, Redis prefix and ports, and the query service's
// address in the commands is replaced by the port this test's query service listens on.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '@va/infra/paths';
import {
  createTopics,
  deleteTopics,
  killAllChildren,
  startService,
  testEnv,
  type TestEnv,
} from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';

const run = promisify(execFile);
const README_QUERY_URL = 'http://127.0.0.1:8080';

/** The commands of the first ```sh block under "## Quick start". */
export function quickStartCommands(readme: string): string[] {
  const section = readme.split(/^## Quick start$/m)[1];
  if (section === undefined) throw new Error('README.md has no "## Quick start" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section.split(/^## /m)[0]!)?.[1];
  if (block === undefined) throw new Error('the quick start has no ```sh code block');
  return block.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

let t: TestEnv;

beforeAll(async () => {
  t = await testEnv('readme quick start');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 2);
  const ingest = startService('ingest', t.env);
  const query = startService('query', t.env);
  await ingest.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
  await query.waitForHealth(`${t.queryUrl}/health`);
});

afterAll(async () => {
  killAllChildren();
  if (!t) return;
  await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
  await deletePrefix(t.redisUrl, t.keyPrefix);
});

describe('README quick start', () => {
  it('gets from a running stack to a first answer in three commands', async () => {
    const commands = quickStartCommands(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    expect(commands).toHaveLength(3);
    expect(commands.join('\n')).toContain(README_QUERY_URL);
    const script = ['set -euo pipefail', ...commands.map((c) => c.replaceAll(README_QUERY_URL, t.queryUrl))];
    const { stdout, stderr } = await run('bash', ['-c', script.join('\n')], {
      cwd: ROOT,
      env: t.env,
      maxBuffer: 16 * 1024 * 1024,
    });
    // demo says how many events it had counted; the answer's rows must hold them all.
    const counted = /counted (\d+) demo events/.exec(stdout);
    expect(counted, `${stdout}\n${stderr}`).not.toBeNull();
    const answer = JSON.parse(stdout.slice(stdout.indexOf('['))) as { keyId: string; total: number }[];
    expect(answer.length).toBeGreaterThan(1);
    expect(answer.reduce((sum, row) => sum + row.total, 0)).toBe(Number(counted![1]));
  });
});

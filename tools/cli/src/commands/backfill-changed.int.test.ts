// Issue #39 item 6, "backfill counts a changed file twice": a file that grew after an interrupted run (an
// export still being written), one that ends in a partial line, and one that was edited after lines of it
// were sent. Real Kafka, the real ingest worker, the compiled CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { type KeySpace } from '@va/store';
import {
  createTopics,
  deleteTopics,
  killAllChildren,
  startService,
  testEnv,
  waitFor,
  type ServiceProcess,
  type TestEnv,
  FAST_GROUP,
} from '@va/testkit/support';
import { deletePrefix, dumpApiCounts } from '@va/store/testing';
import { createGenerator } from '@va/testkit';
import { topicOffsets } from '../ops/kafka';
import { runCli, startCli } from '../testing/cli-process';

const DAY = 86_400_000;

let t: TestEnv;
let redis: Redis;
let client: Kafka;
let dir: string;
let worker: ServiceProcess;
let env: Record<string, string>;
let seed = 40;

beforeAll(async () => {
  t = await testEnv('backfill changed file');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  redis = new Redis(t.redisUrl);
  client = new Kafka({ brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backfill-changed-'));
  env = { ...t.env, ...FAST_GROUP };
  worker = startService('ingest', env);
  await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
});
afterAll(async () => {
  killAllChildren();
  redis?.disconnect();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  if (t) {
    await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
    await deletePrefix(t.redisUrl, t.keyPrefix);
  }
});

/** `n` valid events over the last 30 days, each API named after the test (`tag`), so tests do not mix. */
function events(tag: string, n: number): VerificationEvent[] {
  const gen = createGenerator({
    seed: seed++,
    apis: 3,
    keys: 200,
    identities: 40,
    startMs: Date.now() - 30 * DAY,
    spanMs: 29 * DAY,
  });
  return Array.from({ length: n }, () => {
    const e = gen.next();
    return { ...e, apiId: `${tag}_${e.apiId}` };
  });
}

const ndjson = (list: readonly VerificationEvent[]): string =>
  list.map((e) => `${JSON.stringify(e)}\n`).join('');

/** What the worker counted (t cube over every hour) against what the events say, per API. */
async function countedAndExpected(list: readonly VerificationEvent[]) {
  const expected = new Map<string, number>();
  for (const e of list) expected.set(e.apiId, (expected.get(e.apiId) ?? 0) + 1);
  const counted = new Map<string, number>();
  const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
  for (const apiId of expected.keys()) {
    const { sum } = await dumpApiCounts(redis, space, apiId, 'h');
    counted.set(
      apiId,
      sum.total.reduce((a, b) => a + b, 0),
    );
  }
  return { counted, expected };
}

const produced = async (topic: string): Promise<number> =>
  (await topicOffsets(client, [topic])).reduce((sum, p) => sum + p.high, 0);

const summaryOf = (stdout: string): Record<string, unknown> =>
  JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;

describe('#39 item 6: backfill of a file that changed', () => {
  it('#39 item 6: interrupt, append 1,000 lines, rerun: every line counted exactly once', async () => {
    const first = events('grow', 40_000);
    const file = path.join(dir, 'growing.ndjson');
    fs.writeFileSync(file, ndjson(first));
    const start = await produced(t.backfillTopic);

    const run = startCli(['backfill', '--file', file, '--json'], env);
    const midway = await waitFor(
      async () => {
        const n = (await produced(t.backfillTopic)) - start;
        return n >= first.length / 4 ? n : false;
      },
      { timeoutMs: 240_000, intervalMs: 50, message: 'a quarter of the file produced' },
    );
    await run.kill('SIGKILL');
    expect(midway, 'killed before the end').toBeLessThan(first.length);

    const more = events('grow', 1_000);
    fs.appendFileSync(file, ndjson(more));
    const all = [...first, ...more];
    const again = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(again.code, again.stderr).toBe(0);
    const { counted, expected } = await countedAndExpected(all);
    expect(counted).toEqual(expected);
    expect((await produced(t.backfillTopic)) - start).toBe(all.length);
    expect(summaryOf(again.stdout)).toMatchObject({ read: all.length, produced: all.length });
  });

  it('#39 item 6: a partial last line is not sent; once the line is complete a rerun sends it once', async () => {
    const list = events('part', 2_000);
    const file = path.join(dir, 'partial.ndjson');
    const last = JSON.stringify(list[list.length - 1]);
    fs.writeFileSync(file, ndjson(list.slice(0, -1)) + last.slice(0, 40));
    const start = await produced(t.backfillTopic);
    const dlqStart = await produced(t.dlqTopic);

    const cut = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(cut.code, cut.stderr).toBe(4);
    expect(cut.stderr).toMatch(/line 2000 has no line end/);
    expect((await produced(t.backfillTopic)) - start).toBe(list.length - 1);
    expect(await produced(t.dlqTopic)).toBe(dlqStart);

    fs.appendFileSync(file, `${last.slice(40)}\n`);
    const done = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(done.code, done.stderr).toBe(0);
    const { counted, expected } = await countedAndExpected(list);
    expect(counted).toEqual(expected);
    expect((await produced(t.backfillTopic)) - start).toBe(list.length);
  });

  it('#39 item 6: an edited file is refused, naming the record that sent its lines', async () => {
    const list = events('edit', 3_000);
    const file = path.join(dir, 'edited.ndjson');
    fs.writeFileSync(file, ndjson(list));
    const once = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(once.code, once.stderr).toBe(0);
    const start = await produced(t.backfillTopic);

    // Line 10 changed: every line of the file was sent before; sending it again would count them twice.
    const edited = [...list];
    edited[9] = { ...edited[9]!, requestId: 'edited' };
    fs.writeFileSync(file, ndjson(edited));
    const refused = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /changed: its lines 1-3000 differ from those progress record \S+:backfill:[0-9a-f]{64}/,
    );
    expect((await produced(t.backfillTopic)) - start).toBe(0);

    // Its first line changed instead, while a backfill of the path was unfinished: refused too.
    const other = events('edit', 3_000);
    fs.writeFileSync(file, ndjson(other).slice(0, -1));
    const cut = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(cut.code, cut.stderr).toBe(4);
    fs.writeFileSync(file, ndjson([{ ...other[0]!, requestId: 'first-edited' }, ...other.slice(1)]));
    const unfinished = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(unfinished.code, unfinished.stderr).toBe(2);
    expect(unfinished.stderr).toMatch(/has an unfinished progress record \S+:backfill:[0-9a-f]{64}/);
    const { counted, expected } = await countedAndExpected([...list, ...other.slice(0, -1)]);
    expect(counted).toEqual(expected);
  });
});

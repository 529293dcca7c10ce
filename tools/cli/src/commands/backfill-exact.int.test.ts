// Issue #17.3, "backfill can double count": a produce response lost on the way back (the broker
// appended the records; the CLI never heard so and retried) and a backfill killed midway and run
// again must both leave every event of the file counted exactly once.
//
// The first test reaches the test broker only through a TCP proxy (@va/testkit/support
// startKafkaProxy, which names itself in the broker's metadata) that swallows one Produce response
// of the backfill topic and closes that connection; the CLI and the ingest worker use the proxy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { type KeySpace } from '@va/store';
import {
  API_KEYS,
  createTopics,
  deleteTopics,
  killAllChildren,
  singleBroker,
  startKafkaProxy,
  startService,
  testEnv,
  waitFor,
  type KafkaProxy,
  type TestEnv,
  FAST_GROUP,
} from '@va/testkit/support';
import { deletePrefix, dumpApiCounts } from '@va/store/testing';
import { createGenerator } from '@va/testkit';
import { topicOffsets } from '../ops/kafka';
import { runCli, startCli } from '../testing/cli-process';

const DAY = 86_400_000;

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backfill-exact-'));
});
afterAll(() => {
  killAllChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A file of `n` valid events over the last 30 days (well inside every retention). */
function eventFile(name: string, n: number, seed: number): { file: string; events: VerificationEvent[] } {
  const gen = createGenerator({
    seed,
    apis: 6,
    keys: 300,
    identities: 50,
    startMs: Date.now() - 30 * DAY,
    spanMs: 29 * DAY,
  });
  const events = Array.from({ length: n }, () => gen.next());
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return { file, events };
}

const perApi = (events: readonly VerificationEvent[]): Map<string, number> => {
  const out = new Map<string, number>();
  for (const e of events) out.set(e.apiId, (out.get(e.apiId) ?? 0) + 1);
  return out;
};

/** The t cube summed over every hour bucket, per API of `apis`. */
async function countedPerApi(
  redis: Redis,
  space: KeySpace,
  apis: Iterable<string>,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const apiId of apis) {
    const { sum } = await dumpApiCounts(redis, space, apiId, 'h');
    out.set(
      apiId,
      sum.total.reduce((a, b) => a + b, 0),
    );
  }
  return out;
}

describe('backfill --file through a proxy that loses one produce response', () => {
  let proxy: KafkaProxy;
  let t: TestEnv;
  let redis: Redis;
  beforeAll(async () => {
    t = await testEnv('backfill lost response');
    proxy = await startKafkaProxy({ target: singleBroker(t.kafkaBrokers) });
    await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
    redis = new Redis(t.redisUrl);
  });
  afterAll(async () => {
    killAllChildren();
    redis?.disconnect();
    await proxy?.close();
    if (t) {
      await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    }
  });

  it('counts every line of the file exactly once', async () => {
    const env = { ...t.env, ...FAST_GROUP, KAFKA_BROKERS: proxy.address };
    const worker = startService('ingest', env);
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    const { file, events } = eventFile('lost-response.ndjson', 30_000, 21);

    // The third Produce request of the backfill to its topic gets no answer.
    let produces = 0;
    const dropped = proxy.dropResponse(
      (r) => r.apiKey === API_KEYS.produce && r.topics.includes(t.backfillTopic) && ++produces === 3,
    );
    const result = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(result.code, result.stderr).toBe(0);
    expect((await dropped).topics).toEqual([t.backfillTopic]);
    expect(proxy.dropped).toHaveLength(1);

    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const expected = perApi(events);
    const counted = await countedPerApi(redis, space, expected.keys());
    expect(counted).toEqual(expected);
    const client = new Kafka({ brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
    const backfillEnds = await topicOffsets(client, [t.backfillTopic]);
    expect(backfillEnds.reduce((sum, p) => sum + p.high, 0)).toBe(events.length);
    await worker.kill();
  });
});

describe('backfill --file killed midway and run again', () => {
  let t: TestEnv;
  let redis: Redis;
  beforeAll(async () => {
    t = await testEnv('backfill resume');
    await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
    redis = new Redis(t.redisUrl);
  });
  afterAll(async () => {
    killAllChildren();
    redis?.disconnect();
    if (t) {
      await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    }
  });

  it('resumes where the first run stopped: every line counted exactly once', async () => {
    const env = { ...t.env, ...FAST_GROUP };
    const worker = startService('ingest', env);
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    const { file, events } = eventFile('resume.ndjson', 100_000, 22);
    const client = new Kafka({ brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
    const produced = async () =>
      (await topicOffsets(client, [t.backfillTopic])).reduce((sum, p) => sum + p.high, 0);

    // SIGKILL once a good part (but not all) of the file is in the topic.
    const first = startCli(['backfill', '--file', file, '--json'], env);
    const midway = await waitFor(
      async () => {
        const n = await produced();
        return n >= events.length / 4 ? n : false;
      },
      { timeoutMs: 240_000, intervalMs: 50, message: 'a quarter of the file produced' },
    );
    await first.kill('SIGKILL');
    expect(midway, 'killed before the end').toBeLessThan(events.length);

    const second = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming .* after line [1-9]\d*/);
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const expected = perApi(events);
    expect(await countedPerApi(redis, space, expected.keys())).toEqual(expected);
    expect(await produced()).toBe(events.length);

    // A finished file is not sent again.
    const third = await runCli(['backfill', '--file', file, '--json', '--timeout', '240'], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toMatch(/backfilled completely/);
    expect(await produced()).toBe(events.length);
    expect(JSON.parse(third.stdout.trim().split('\n').pop()!)).toMatchObject({
      read: events.length,
      produced: events.length,
      counted: events.length,
    });
    await worker.kill();
  });
});

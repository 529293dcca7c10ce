// `backfill --file`: 100,000 events spread over the last 60 days, plus invalid lines, while live
// events flow; a real ingest worker counts them. Afterwards every cube of every API equals the
// counts computed from the events, the summary says what happened (read, produced, counted,
// dead-lettered by reason, including what the worker itself refused), and the DLQ holds the rest.
// Live freshness during the backfill is logged (not asserted: the machine is shared).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { loadConfig } from '@va/config';
import { readWatermarks, registerApi, type KeySpace } from '@va/store';
import {
  createTopics,
  deleteTopics,
  testEnv,
  type TestEnv,
  killAllChildren,
  startService,
  waitFor,
  FAST_GROUP,
} from '@va/testkit/support';
import { topicEnds, eventMessages, produceMessages, createGenerator, seededRandom } from '@va/testkit';
import { storeDiff, clearOfHorizon, caughtUp, deletePrefix, dumpApiCounts } from '@va/store/testing';
import { topicOffsets } from '../ops/kafka';
import { runCli } from '../testing/cli-process';

/** Events of the backfill file: the issue asks for at least 100,000 over the last 60 days. */
const BACKFILL_EVENTS = 100_000;
const LIVE_RATE = 300;
const DAY = 86_400_000;

let t: TestEnv;
let redis: Redis;
let kafka: Kafka;
let dir: string;
beforeAll(async () => {
  t = await testEnv('cli backfill');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  redis = new Redis(t.redisUrl);
  kafka = new Kafka({ clientId: 'backfill-test', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'backfill-'));
});
afterAll(async () => {
  killAllChildren();
  redis.disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
  await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
  await deletePrefix(t.redisUrl, t.keyPrefix);
});

/** Total of the t cube over all hours, per API of the events. */
async function storedTotals(
  space: KeySpace,
  events: readonly VerificationEvent[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const apiId of new Set(events.map((e) => e.apiId))) {
    const { sum } = await dumpApiCounts(redis, space, apiId, 'h');
    out.set(
      apiId,
      sum.total.reduce((a, b) => a + b, 0),
    );
  }
  return out;
}

describe('backfill --file', () => {
  it('counts every valid event exactly once while live events flow, and dead-letters the rest', async () => {
    const env = { ...t.env, ...FAST_GROUP };
    const hourMs = loadConfig(env).retention.hourMs;
    const now = Date.now();
    const worker = startService('ingest', env);
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

    // The file: valid events over the last 60 days, invalid lines of every kind the CLI refuses,
    // and events of an API owned by another workspace (valid for the decoder: the worker refuses them).
    const gen = createGenerator({
      seed: 11,
      apis: 8,
      keys: 800,
      identities: 150,
      startMs: now - 60 * DAY,
      spanMs: 60 * DAY - 3_600_000,
    });
    const backfill = Array.from({ length: BACKFILL_EVENTS }, () => clearOfHorizon(gen.next(), now, hourMs));
    await registerApi(redis, t.keyPrefix, 'api_owned', 'ws_other');
    const foreign = Array.from({ length: 7 }, (_, n) => ({
      ...backfill[n]!,
      requestId: `f${n}`,
      apiId: 'api_owned',
    }));
    const sample = backfill[0]!;
    const invalid = [
      ...Array.from({ length: 30 }, (_, n) => `{"broken": ${n}`),
      ...Array.from({ length: 20 }, () => JSON.stringify({ ...sample, outcome: 'MAYBE' })),
      ...Array.from({ length: 10 }, () => JSON.stringify({ ...sample, time: now + 3_600_000 })),
      ...Array.from({ length: 10 }, () => JSON.stringify({ ...sample, time: Date.UTC(2015, 0, 1) })),
    ];
    const lines = [
      ...backfill.map((e) => JSON.stringify(e)),
      ...foreign.map((e) => JSON.stringify(e)),
      ...invalid,
    ];
    // Shuffled (seeded), with a few blank lines at the end (layout, not events).
    const random = seededRandom(14);
    for (let n = lines.length - 1; n > 0; n--) {
      const m = Math.floor(random() * (n + 1));
      [lines[n], lines[m]] = [lines[m]!, lines[n]!];
    }
    const file = path.join(dir, 'events.ndjson');
    fs.writeFileSync(file, `${lines.join('\n')}\n\n\n`);

    // Live traffic throughout, and its freshness.
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const liveGen = createGenerator({
      seed: 12,
      apis: 8,
      keys: 800,
      identities: 150,
      startMs: 0,
      spanMs: 0,
      clock: () => Date.now(),
      jitterMs: 500,
    });
    const live: VerificationEvent[] = [];
    let flowing = true;
    const liveDone = (async () => {
      while (flowing) {
        const chunk = Array.from({ length: LIVE_RATE / 5 }, () => liveGen.next());
        live.push(...chunk);
        await produceMessages(producer, eventMessages(chunk), { topic: t.topic });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const lags: number[] = [];
    const probe = setInterval(() => {
      void (async () => {
        const offsets = await topicOffsets(kafka, [t.topic]);
        const wms = await readWatermarks(redis, space, offsets);
        lags.push(offsets.reduce((sum, p, n) => sum + Math.max(0, p.high - 1 - (wms[n] ?? -1)), 0));
      })().catch(() => undefined);
    }, 1_000);

    const started = Date.now();
    const result = await runCli(['backfill', '--file', file, '--json'], env);
    const seconds = (Date.now() - started) / 1000;
    clearInterval(probe);
    flowing = false;
    await liveDone;
    await producer.disconnect();
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(summary).toMatchObject({
      read: BACKFILL_EVENTS + foreign.length + invalid.length,
      produced: BACKFILL_EVENTS + foreign.length,
      counted: BACKFILL_EVENTS,
      deadLettered: { not_json: 30, unknown_outcome: 20, future_time: 10, expired: 10 },
      deadLetteredByWorker: { workspace_mismatch: foreign.length },
    });
    const sorted = [...lags].sort((a, b) => a - b);
    process.stderr.write(
      `[backfill] ${BACKFILL_EVENTS} events in ${seconds.toFixed(1)} s; live lag during the backfill ` +
        `(messages, sampled every second): median ${sorted[Math.floor(sorted.length / 2)] ?? 0}, ` +
        `max ${sorted[sorted.length - 1] ?? 0} at ${LIVE_RATE} events/s ` +
        `(~${((sorted[sorted.length - 1] ?? 0) / LIVE_RATE).toFixed(1)} s behind at worst)\n`,
    );

    // Every counted event is there exactly once, in every cube.
    const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
    await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 120_000, message: 'live caught up' });
    expect(await storeDiff(redis, space, [...backfill, ...live], { now, hourRetentionMs: hourMs })).toEqual(
      [],
    );
    // The DLQ holds what the CLI refused and what the worker refused.
    const dlq = await topicOffsets(kafka, [t.dlqTopic]);
    expect(dlq.reduce((sum, p) => sum + p.high, 0)).toBe(invalid.length + foreign.length);
  });

  it('--from-topic replays another topic (and refuses the topics the workers consume)', async () => {
    const source = `${t.topic}.archive`;
    await createTopics(t.kafkaBrokers, [source], 2);
    // Idempotent: a produce request resent right after the topic's creation (one partition not ready yet)
    // must not write the other partition's events twice.
    const producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const gen = createGenerator({
      seed: 15,
      apis: 8, // the same APIs and workspaces as the first test's
      keys: 50,
      identities: 10,
      startMs: Date.now() - 10 * DAY,
      spanMs: 5 * DAY,
    });
    const archived = Array.from({ length: 500 }, () => gen.next());
    await produceMessages(producer, eventMessages(archived), { topic: source });
    await producer.send({ topic: source, messages: [{ key: 'x', value: 'not json' }] });
    await producer.disconnect();
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const before = await storedTotals(space, archived);

    const result = await runCli(['backfill', '--from-topic', source, '--json'], t.env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').pop()!)).toMatchObject({
      read: 501,
      produced: 500,
      counted: 500,
      deadLettered: { not_json: 1 },
    });
    const after = await storedTotals(space, archived);
    for (const [apiId, n] of after)
      expect(n - (before.get(apiId) ?? 0), apiId).toBe(archived.filter((e) => e.apiId === apiId).length);

    const refused = await runCli(['backfill', '--from-topic', t.topic], t.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/would count them twice/);
    await deleteTopics(t.kafkaBrokers, [source]);
  });

  it('says so when no ingest worker runs', async () => {
    killAllChildren();
    const file = path.join(dir, 'few.ndjson');
    const gen = createGenerator({
      seed: 13,
      apis: 2,
      keys: 10,
      identities: 5,
      startMs: Date.now() - DAY,
      spanMs: 3_600_000,
    });
    fs.writeFileSync(file, Array.from({ length: 50 }, () => `${JSON.stringify(gen.next())}\n`).join(''));
    const env = { ...t.env, KAFKA_GROUP: `${t.consumerGroup}-nobody` };
    const result = await runCli(['backfill', '--file', file, '--timeout', '60'], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/no ingest worker is running \(consumer group .*-nobody has no members\)/);
    expect(result.stdout).toMatch(/produced\s+50/);
  });
});

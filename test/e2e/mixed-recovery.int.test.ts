// Every recovery path in one randomized run (issue #17), then every cube against the events:
//
//   - the ingest worker SIGKILLed at a random moment while events flow;
//   - Redis SIGKILLed and restarted without the tail of its AOF (the last second a machine crash
//     loses), while the compactor runs; the cut always reaches back over applied batches, and the
//     test checks that the restarted Redis really lost them (its watermarks went back) before the
//     worker, frozen (SIGSTOP) during the restart, applies them again;
//   - a backfill from a file through the operator CLI, one of whose produce responses is lost on
//     the way back (a TCP proxy swallows it after the broker appended the records; the CLI retries);
//   - a rebuild into a new generation, SIGKILLed part-way through its replay and resumed.
//
// Every Kafka client of the run (test producer, services, CLI) reaches the test broker through a
// proxy (startKafkaProxy, which names itself in the broker's metadata); Redis is a redis-server of
// this test's own, to crash. With TEST_PORT_RANGE=<from>-<to> both take their ports from that range.
//
// Live, late (past the hour horizon) and backfilled events; the compactor runs throughout. At the
// end every hour, day and month cube of every API in the current generation equals the counts
// computed straight from the produced events (the hour/rollup split by the API's `cmp`).
// E2E_SEED=<n> replays a run; the seed is printed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import type { VerificationEvent } from '@va/contracts';
import { hourOf } from '@va/core';
import { ROOT } from '@va/infra/paths';
import {
  readCompactedThrough,
  readGeneration,
  readRebuildState,
  readWatermarks,
  watermarkKey,
  type KeySpace,
} from '@va/store';
import { createGenerator, eventMessages, produceMessages, seededRandom, topicEnds } from '@va/testkit';
import {
  storeDiff,
  expectedCounts,
  diffCounts,
  clearOfHorizon,
  caughtUp,
  dumpApiCounts,
} from '@va/store/testing';
import {
  API_KEYS,
  createTopics,
  deleteTopics,
  loseAofTail,
  privatePort,
  singleBroker,
  startKafkaProxy,
  startRedisServer,
  startService,
  testEnv,
  track,
  waitFor,
  type KafkaProxy,
  type RedisServer,
  type ServiceProcess,
  type TestEnv,
  FAST_GROUP,
} from '@va/testkit/support';

const SEED = Number(process.env.E2E_SEED) || Math.floor(Math.random() * 1_000_000);
const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestEnv;
let proxy: KafkaProxy;
let env: Record<string, string>;
let dir: string;
let server: RedisServer;
let redis: Redis;
let kafka: Kafka;
let producer: Producer;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  t = await testEnv('mixed recovery');
  proxy = await startKafkaProxy({ target: singleBroker(t.kafkaBrokers), port: await privatePort() });
  await createTopics([proxy.address], [t.topic, t.backfillTopic, t.dlqTopic], 4);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mixed-recovery-redis-'));
  server = await startRedisServer({ dir, port: await privatePort() });
  env = {
    ...t.env,
    KAFKA_BROKERS: proxy.address,
    REDIS_URL: server.url,
    ...FAST_GROUP,
    COMPACTION_EVERY_MS: '1000',
  };
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // reconnects across the Redis crash
  kafka = new Kafka({ clientId: 'mixed-recovery', brokers: [proxy.address], logLevel: logLevel.NOTHING });
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
});

afterAll(async () => {
  for (const s of services) await s.kill('SIGKILL');
  await producer?.disconnect();
  redis?.disconnect();
  await server?.stop();
  if (t) await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
  await proxy?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The operator CLI as a child process (the way an operator runs it). */
function cli(args: string[], cliEnv: Record<string, string>) {
  const child = spawn(process.execPath, ['--enable-source-maps', 'tools/cli/dist/main.js', ...args], {
    cwd: ROOT,
    env: cliEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { child, exited, output: () => out };
}

function start(name: 'ingest' | 'compactor'): ServiceProcess {
  const s = startService(name, env);
  services.push(s);
  return s;
}

async function settled(space: KeySpace): Promise<void> {
  const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
  await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 120_000, message: 'caught up' });
}

it('counts every event exactly through a worker kill, a Redis AOF loss, a backfill and a killed rebuild', async () => {
  const random = seededRandom(SEED);
  const now = Date.now();
  const hourMs = loadConfig(env).retention.hourMs;
  const opts = { apis: 5, keys: 300, identities: 60 };
  const live = createGenerator({ seed: SEED, ...opts, startMs: now - 2 * DAY, spanMs: 2 * DAY - 120_000 });
  const late = createGenerator({ seed: SEED + 1, ...opts, startMs: now - 50 * DAY, spanMs: 10 * DAY });
  const old = createGenerator({ seed: SEED + 2, ...opts, startMs: now - 60 * DAY, spanMs: 58 * DAY });
  const events: VerificationEvent[] = [];
  const liveChunk = (n: number) => {
    const chunk = Array.from({ length: n }, () =>
      random() < 0.05 ? clearOfHorizon(late.next(), now, hourMs) : live.next(),
    );
    events.push(...chunk);
    return produceMessages(producer, eventMessages(chunk), { topic: t.topic, chunk: 25 });
  };

  let worker = start('ingest');
  start('compactor');
  await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);

  // 1. The worker SIGKILLed at a random moment while a first part flows, then started again.
  const first = liveChunk(3_000);
  await sleep(500 + random() * 2_000);
  await worker.kill('SIGKILL');
  worker = start('ingest');
  await first;
  await settled({ prefix: t.keyPrefix, generation: 1 });

  // 2. Redis crashes and comes back without the tail of its AOF, while more events flow. The cut
  // reaches back over the last watermark move at least, so applied batches are really lost; the
  // worker is frozen while Redis restarts so that the loss can be seen before it applies them again.
  const second = liveChunk(2_000);
  await sleep(500 + random() * 1_500);
  const g1: KeySpace = { prefix: t.keyPrefix, generation: 1 };
  const partitions = [t.topic, t.backfillTopic].flatMap((topic) =>
    [0, 1, 2, 3].map((partition) => ({ topic, partition })),
  );
  const applied = async () =>
    (await readWatermarks(redis, g1, partitions)).reduce<number>(
      (s, wm) => s + (wm === null ? 0 : wm + 1),
      0,
    );
  await server.kill('SIGKILL');
  await sleep(200 + random() * 500);
  // What Redis held at the crash: a restart with the whole AOF, the worker frozen from here on.
  process.kill(worker.pid, 'SIGSTOP');
  await server.restart();
  const beforeCrash = await applied();
  // The same crash, this time losing the AOF's tail.
  await server.kill('SIGKILL');
  const cutBytes = loseAofTail(dir, 10_000 + Math.floor(random() * 100_000), { losing: watermarkKey(g1) });
  await server.restart();
  const afterCrash = await applied();
  process.kill(worker.pid, 'SIGCONT');
  const lostOffsets = beforeCrash - afterCrash;
  expect(lostOffsets, 'applied offsets the restarted Redis lost').toBeGreaterThan(0);
  await second;

  // 3. A backfill of older history from a file, while live events keep coming; the proxy swallows
  // the response to its first produce request (the broker appended the records) and closes that
  // connection, and the CLI's producer sends the batch again.
  const backfill = Array.from({ length: 1_500 }, () => clearOfHorizon(old.next(), now, hourMs));
  events.push(...backfill);
  const file = path.join(dir, 'backfill.jsonl');
  fs.writeFileSync(file, backfill.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const dropped = proxy.dropResponse(
    (r) => r.apiKey === API_KEYS.produce && r.topics.includes(t.backfillTopic),
  );
  const third = liveChunk(1_000);
  const run = cli(['backfill', '--file', file, '--json'], env);
  expect(await run.exited, run.output()).toBe(0);
  expect((await dropped).topics).toEqual([t.backfillTopic]);
  expect(proxy.dropped).toHaveLength(1);
  await third;
  const backfilled = (await topicEnds(kafka, [t.backfillTopic])).reduce((sum, p) => sum + p.last + 1, 0);
  expect(backfilled, 'records in the backfill topic').toBe(backfill.length);

  // 4. A rebuild, slowed down so that it is SIGKILLed mid-replay, then resumed to the switch.
  const slow = { ...env, INGEST_MAX_BYTES_PER_PARTITION: '4096', INGEST_CONCURRENCY: '1' };
  const rebuild = cli(['rebuild', '--yes'], slow);
  await waitFor(
    async () => {
      if (rebuild.child.exitCode !== null) throw new Error(`rebuild exited: ${rebuild.output()}`);
      return (await readRebuildState(redis, t.keyPrefix))?.status === 'replaying';
    },
    { timeoutMs: 60_000, intervalMs: 50, message: 'rebuild replaying' },
  );
  await sleep(random() * 1_500);
  rebuild.child.kill('SIGKILL');
  await rebuild.exited;
  expect((await readRebuildState(redis, t.keyPrefix))?.status).toBe('replaying');
  expect(await readGeneration(redis, t.keyPrefix)).toBe(1);
  const fourth = liveChunk(1_000);
  // `rebuild resume` takes over once the killed process' heartbeat is stale.
  await waitFor(
    async () => Date.now() - ((await readRebuildState(redis, t.keyPrefix))?.heartbeatAt ?? 0) > 10_500,
    { timeoutMs: 30_000, message: 'rebuild heartbeat stale' },
  );
  const resumed = cli(['rebuild', 'resume'], env);
  expect(await resumed.exited, resumed.output()).toBe(0);
  expect(resumed.output()).toMatch(/switched: queries read generation 2/);
  await fourth;

  // Every cube against the events.
  const generation = await readGeneration(redis, t.keyPrefix);
  expect(generation).toBe(2);
  const space: KeySpace = { prefix: t.keyPrefix, generation };
  await settled(space);
  expect(await storeDiff(redis, space, events, { now, hourRetentionMs: hourMs })).toEqual([]);
  const problems: string[] = [];
  for (const apiId of [...new Set(events.map((e) => e.apiId))].sort()) {
    const cmp = (await readCompactedThrough(redis, space, apiId)) ?? -1;
    const want = expectedCounts(
      events.filter((e) => e.apiId === apiId),
      (e) => hourOf(e.time) <= cmp,
    ).get(apiId);
    const got = (await dumpApiCounts(redis, space, apiId, 'd')).sum;
    if (want) problems.push(...diffCounts(`${apiId} days`, want, got, 5));
  }
  expect(problems).toEqual([]);
  process.stderr.write(
    `[mixed-recovery] seed ${SEED}: ${events.length} events, worker kill, Redis AOF-tail loss ` +
      `(${cutBytes} bytes cut, ${lostOffsets} applied offsets lost), ` +
      `backfill of ${backfill.length} with a lost produce response, rebuild killed and resumed: every cube exact\n`,
  );
});

// Usage alerts end to end through faults (docs/alerts.md "Delivery"): every crossing becomes a signed webhook
// with its alert id as webhook-id, none missed and none made up, while
//
//   - the ingest worker is SIGKILLed 3 times at random moments while events stream at 3,000/s;
//   - the compactor, which runs the delivery, is SIGKILLed twice: once while webhooks wait for their retries,
//     once while webhooks are being sent;
//   - Redis (a redis-server of this test's own, AOF as infra/redis.conf) is SIGKILLed and started again on
//     the same port and data dir;
//   - the receiver (a real HTTP server that verifies every signature with the `standardwebhooks` package)
//     answers 500 for a while.
//
// Rules and the endpoint are made through the API (the query service) for 2,000 identities: "each identity"
// monthly at 3 levels, the same counting VALID only, daily, and "each key". Afterwards the distinct
// webhook-ids received are the crossings the oracle (@va/core expectedCrossings) computes from the events;
// repeats of an id are allowed (at least once) and printed. Then `rebuild` counts everything again into a new
// generation and delivers no new webhook-id.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import { createClient } from '@va/client';
import type { AlertRule, CreateAlertRuleRequest, VerificationEvent } from '@va/contracts';
import { expectedCrossings } from '@va/core';
import { ROOT } from '@va/infra/paths';
import {
  alertKeys,
  createRootKey,
  CROSSINGS_GROUP,
  decodeCrossing,
  globalKeys,
  readGeneration,
  readWatermarks,
  registerApi,
  type KeySpace,
} from '@va/store';
import { caughtUp } from '@va/store/testing';
import { alertTraffic, eventMessages, produceWithTail, seededRandom, topicEnds } from '@va/testkit';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  privatePort,
  startRedisServer,
  startService,
  testEnv,
  track,
  waitFor,
  type RedisServer,
  type ServiceProcess,
} from '@va/testkit/support';
import { duplicates, startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

const API = 'api_alert_faults';
const WORKSPACE = 'ws_alert_faults';
const EVENTS = 30_000;
const IDENTITIES = 2_000;
/** The delivery's BullMQ queue (services/compactor/src/alerts/jobs.ts DELIVERY_QUEUE). */
const DELIVERY_QUEUE = 'alert-delivery';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const RULES: Omit<CreateAlertRuleRequest, 'apiId'>[] = [
  { scope: { kind: 'eachIdentity' }, period: 'month', levels: [5, 15, 40] },
  { scope: { kind: 'eachIdentity' }, outcomes: ['VALID'], period: 'month', levels: [10, 20, 30] },
  { scope: { kind: 'eachIdentity' }, period: 'day', levels: [12, 25] },
  { scope: { kind: 'eachKey' }, period: 'month', levels: [300, 600] },
];

const traffic = (seed: number): VerificationEvent[] =>
  alertTraffic({
    seed,
    events: EVENTS,
    identities: IDENTITIES,
    apiId: API,
    workspaceId: WORKSPACE,
    requestPrefix: 'af-',
  });

/** The operator CLI as a child process, run to its end (built by the integration tests' global setup). */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--enable-source-maps', 'tools/cli/dist/main.js', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
}

it('delivers every crossing as a signed webhook through worker, delivery and Redis kills, and a rebuild adds none', async () => {
  const started = Date.now();
  const t = await testEnv('alerts faults');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alerts-faults-redis-'));
  const server: RedisServer = await startRedisServer({ dir, port: await privatePort(), appendonly: true });
  const hook: WebhookReceiver = await startWebhookReceiver();
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // reconnects across the Redis restart
  const kafka = new Kafka({ clientId: 'alerts-faults', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanups.push(async () => {
    await producer.disconnect();
    redis.disconnect();
    await hook.close();
    await server.stop();
    await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const env = {
    ...t.env,
    ...FAST_GROUP,
    REDIS_URL: server.url,
    // Fetches of ~5,000 events: a restarted worker's first batch over the backlog ends well within its 6 s
    // session on a loaded machine (one 20,000-event batch did not, and the worker, dropped from the group,
    // never committed it).
    INGEST_MAX_BYTES_PER_PARTITION: String(1 << 20),
    ALERTS_ALLOW_PRIVATE_URLS: 'on', // the receiver listens on 127.0.0.1
    ALERTS_POLL_MS: '200',
    // The schedule's shape with short waits: a killed delivery's webhooks and crossings are taken over
    // within seconds, and retries after the 500s come 0.5 s, 1 s, 2 s, ... apart.
    ALERTS_RETRY_BASE_MS: '500',
    ALERTS_DELIVERY_TIMEOUT_MS: '2000',
    ALERTS_DELIVERY_LOCK_MS: '4000',
    ALERTS_CLAIM_IDLE_MS: '4000',
  };

  // Rules and the endpoint through the API, as a customer makes them.
  await registerApi(redis, t.keyPrefix, API, WORKSPACE);
  const { key } = await createRootKey(redis, t.keyPrefix, {
    workspaceId: WORKSPACE,
    permissions: ['api.*.manage_alerts'],
    now: Date.now(),
  });
  const query = startService('query', env);
  await query.waitForHealth(`${t.queryUrl}/health`);
  const client = createClient({ baseUrl: t.queryUrl, token: key });
  const rules: AlertRule[] = [];
  for (const rule of RULES) rules.push(await client.createAlertRule({ apiId: API, ...rule }));
  hook.secret = (await client.createAlertEndpoint({ url: hook.url })).secret; // every rule of the workspace
  await query.kill('SIGTERM');

  const events = traffic(44);
  const expected = new Set(expectedCrossings(rules, events).keys());

  const services: ServiceProcess[] = [];
  const start = (name: 'ingest' | 'compactor') => {
    const s = startService(name, env);
    services.push(s);
    return s;
  };
  cleanups.push(async () => {
    for (const s of services) await s.kill('SIGKILL');
  });
  let ingest = start('ingest');
  let compactor = start('compactor');
  await Promise.all([
    ingest.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`),
    compactor.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`),
  ]);

  const marks: string[] = [];
  const mark = (what: string) => marks.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  mark('services up');
  const kills = { ingest: 0, compactor: 0, redis: 0 };
  let faultsDone = false;
  let producing = true;
  const produced = produceWithTail(
    producer,
    [...eventMessages(events)],
    { topic: t.topic, rate: 3_000, chunk: 300 },
    { until: () => faultsDone, tailRate: 150, tailChunk: 30, tailShare: 0.3 },
  ).finally(() => (producing = false));
  produced.catch(() => undefined); // awaited below; a failed test disconnects the producer under it

  const g1: KeySpace = { prefix: t.keyPrefix, generation: 1 };
  const partitions = [0, 1, 2, 3].map((partition) => ({ topic: t.topic, partition }));
  const applied = async () =>
    (await readWatermarks(redis, g1, partitions)).reduce<number>(
      (s, wm) => s + (wm === null ? 0 : wm + 1),
      0,
    );
  const delivered = () => [...hook.delivered.values()].reduce((s, n) => s + n, 0);
  const random = seededRandom(7);

  // The ingest worker: SIGKILLed 3 times, each after it made progress, at a random moment of a batch.
  const ingestFaults = async () => {
    while (kills.ingest < 3) {
      const before = await applied();
      await waitFor(async () => (await applied()) > before || !producing, {
        timeoutMs: 60_000,
        intervalMs: 50,
        message: 'ingest progress',
      });
      await sleep(random() * 1_500);
      await ingest.kill('SIGKILL');
      kills.ingest++;
      ingest = start('ingest');
    }
  };
  // Delivery and Redis: the receiver fails; the compactor dies while webhooks wait for their retries; Redis
  // dies and comes back; the receiver recovers; the compactor dies again while webhooks are being sent.
  const deliveryFaults = async () => {
    await waitFor(() => delivered() >= 30, { message: 'first webhooks delivered' });
    hook.failing = true;
    const failingSince = Date.now();
    await waitFor(() => hook.refused >= 100, { message: 'webhooks answered 500' });
    await sleep(random() * 500);
    await compactor.kill('SIGKILL');
    kills.compactor++;
    compactor = start('compactor');
    await compactor.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`);
    await sleep(random() * 1_000);
    await server.kill('SIGKILL');
    kills.redis++;
    await server.restart();
    await sleep(Math.max(0, failingSince + 5_000 - Date.now()));
    hook.failing = false;
    const before = delivered();
    await waitFor(() => delivered() >= before + 100, { message: 'webhooks delivered after the 500s' });
    await sleep(random() * 300);
    await compactor.kill('SIGKILL');
    kills.compactor++;
    compactor = start('compactor');
  };
  await Promise.all([ingestFaults(), deliveryFaults()]);
  faultsDone = true;
  mark('faults done');
  await produced;
  const ends = await topicEnds(kafka, [t.topic]);
  await waitFor(() => caughtUp(redis, g1, ends), { timeoutMs: 120_000, message: 'caught up' });
  mark('caught up');

  // Detection: the crossings stream holds the oracle's crossings, each once.
  const streamIds = async () =>
    (await redis.xrange(alertKeys(t.keyPrefix, API).crossings, '-', '+')).map(
      ([, fields]) => decodeCrossing(API, fields).alertId,
    );
  const appended = await streamIds();
  expect(appended.length).toBe(new Set(appended).size);
  expect(new Set(appended)).toEqual(expected);

  // Delivery is done when the group has read and acknowledged every entry (so every job is queued) and then
  // no job is left waiting, delayed or running (a killed worker's job stays active until it is taken over).
  const queue = new Queue(DELIVERY_QUEUE, { connection: redis, prefix: globalKeys(t.keyPrefix).bull });
  cleanups.push(() => queue.close());
  const drained = async () => {
    const stream = alertKeys(t.keyPrefix, API).crossings;
    const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
    const group = groups.map((g) => fields(g)).find((g) => g.name === CROSSINGS_GROUP);
    const [last] = await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    if (group?.['last-delivered-id'] !== last?.[0] || group?.pending !== 0) return false;
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'paused');
    return Object.values(counts).every((n) => n === 0);
  };
  await waitFor(drained, { timeoutMs: 120_000, intervalMs: 250, message: 'every webhook sent' });
  mark('delivered');
  const received = new Set(hook.delivered.keys());
  const missing = [...expected].filter((id) => !received.has(id));
  const extra = [...received].filter((id) => !expected.has(id));
  const { completed } = await queue.getJobCounts('completed');
  process.stderr.write(
    `[alerts-faults] ${events.length} events, ${expected.size} crossings (oracle), ${received.size} webhook-ids ` +
      `received, ${delivered()} deliveries answered 200 (${duplicates(hook)} duplicates), ${hook.refused} ` +
      `answered 500, ${completed} jobs completed; SIGKILLs: ingest ${kills.ingest}, compactor ${kills.compactor}, ` +
      `redis ${kills.redis}\n`,
  );
  expect(kills).toEqual({ ingest: 3, compactor: 2, redis: 1 });
  expect(expected.size).toBeGreaterThan(3_000);
  expect(hook.refused).toBeGreaterThan(0);
  expect(hook.forged).toEqual([]);
  const examples = [...missing.slice(0, 5), ...extra.slice(0, 5)];
  expect({ missing: missing.length, extra: extra.length, examples }).toEqual({
    missing: 0,
    extra: 0,
    examples: [],
  });
  expect(completed).toBeGreaterThanOrEqual(expected.size);

  // A rebuild counts every event again into generation 2 and finds the same crossings: nothing new is
  // appended, so nothing new is sent (the wait: the group has read the stream to its end, no job is left).
  const rebuilt = await runCli(['rebuild', '--yes'], env);
  expect(rebuilt.code, rebuilt.out).toBe(0);
  mark('rebuilt');
  expect(await readGeneration(redis, t.keyPrefix)).toBe(2);
  await waitFor(drained, { timeoutMs: 60_000, intervalMs: 250, message: 'delivery after the rebuild' });
  expect(await streamIds()).toEqual(appended);
  const newIds = [...hook.delivered.keys()].filter((id) => !received.has(id));
  mark('delivered after the rebuild');
  process.stderr.write(
    `[alerts-faults] after rebuild: ${newIds.length} new webhook-ids; ${marks.join(', ')}\n`,
  );
  expect(newIds).toEqual([]);
});

/** XINFO's flat [name, value, ...] reply as an object. */
const fields = (flat: unknown[]): Record<string, unknown> =>
  Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : [])));

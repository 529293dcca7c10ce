// Scale-out end to end (docs/deploy.md): a private Redis Cluster (3 masters, 3 replicas, AOF on), two
// ingest workers in one consumer group, the compactor and two query services, all real processes.
//
//   - 120,000 events over 8 APIs; the hot one (api_0, about a third) is keyed by apiId+keyId, so it is
//     spread over all 4 partitions and both workers write it at once;
//   - one worker is SIGKILLed twice mid-stream (its partitions move to the other and back);
//   - the master serving the hot API's slot is SIGKILLed mid-stream; its replica takes over. The workers
//     run with INGEST_WAIT_REPLICAS=1, so nothing they moved past was only on the dead master;
//   - the compactor runs throughout (every closed hour is compacted: grace 0, a fixed clock).
//
// Afterwards every hour and month cube of every API equals the counts computed from the events, and
// random queries to both query services equal the oracle (@va/core) over the same events.
// CLUSTER_E2E_SEED=<n> replays a run; the seed is printed.
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR_GRANULARITIES, type GroupBy, type VerificationEvent } from '@va/contracts';
import { DAY_MS, hourOf, oracle, parseQuery } from '@va/core';
import { createRootKey, readCompactedThrough, type KeySpace, type RedisClient } from '@va/store';
import { createGenerator, eventMessages, produceWithTail, seededRandom, topicEnds } from '@va/testkit';
import { caughtUp, connectTarget, storeDiff } from '@va/store/testing';
import {
  createTopics,
  deleteTopics,
  expectJsonEqual,
  privatePort,
  startService,
  startTestCluster,
  testEnv,
  waitFor,
  type ServiceProcess,
  type TestCluster,
  type TestEnv,
  FAST_GROUP,
} from '@va/testkit/support';
import { ANSWER_BUDGET_MS, scaled } from '@va/testkit/time';

const SEED = Number(process.env.CLUSTER_E2E_SEED) || Math.floor(Math.random() * 1_000_000);
const EVENTS = 120_000;
const HOT = 'api_0';
const QUERIES_PER_SERVICE = 150;
const NOW = Date.now();
const HOUR_RETENTION_MS = 35 * DAY_MS;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestEnv;
let cluster: TestCluster;
let redis: RedisClient;
let kafka: Kafka;
let env: Record<string, string>;
const services: ServiceProcess[] = [];

beforeAll(async () => {
  t = await testEnv('cluster scale-out');
  cluster = await startTestCluster();
  redis = connectTarget(cluster.target, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // through the failover
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
  kafka = new Kafka({ clientId: 'cluster-e2e', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  env = {
    ...t.env,
    ...cluster.env,
    FIXED_NOW_MS: String(NOW),
    INGEST_WAIT_REPLICAS: '1',
    INGEST_WAIT_TIMEOUT_MS: '1000',
    ...FAST_GROUP,
    COMPACTION_EVERY_MS: '500',
    COMPACTION_GRACE_MS: '0',
    // Correctness, not speed: query #26 of seed 838193 (key x tags x day, ~1 s here idle) ran past the 10 s default
    // budget on a loaded CI machine (a 503). The budget has tests of its own, which set it.
    QUERY_TIMEOUT_MS: String(ANSWER_BUDGET_MS),
  };
}, scaled(120_000));

afterAll(async () => {
  for (const s of services) await s.kill('SIGKILL');
  redis?.disconnect();
  await cluster?.stop();
  if (t) await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
});

function start(name: 'ingest' | 'compactor' | 'query', overrides: Record<string, string> = {}) {
  const s = startService(name, { ...env, ...overrides });
  services.push(s);
  return s;
}

/** Live traffic over the last 2 days, a few percent late by up to 40 days (some past the hour retention). */
function makeEvents(): VerificationEvent[] {
  const generator = createGenerator({
    seed: SEED,
    apis: 8,
    keys: 3_000,
    identities: 500,
    startMs: NOW - 2 * DAY_MS,
    spanMs: 2 * DAY_MS - 60_000,
  });
  const random = seededRandom(SEED + 1);
  return Array.from({ length: EVENTS }, () => {
    const e = generator.next();
    if (random() < 0.03) {
      e.time = NOW - Math.floor(random() * 40 * DAY_MS);
      // Keep clear of the hour horizon, where an event may land on either side during the run.
      if (Math.abs(e.time - (NOW - HOUR_RETENTION_MS)) < 2 * DAY_MS) e.time -= 4 * DAY_MS;
    }
    return e;
  });
}

/** A random valid query over the events' APIs, keys, identities and tags. */
function randomQuery(random: () => number, events: readonly VerificationEvent[]): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const sample = pick(events);
  const params = new URLSearchParams({ apiId: random() < 0.5 ? HOT : sample.apiId });
  if (random() < 0.3) params.append('keyId', sample.keyId);
  if (random() < 0.2 && sample.identity) params.append('externalId', sample.identity.externalId);
  if (random() < 0.2 && sample.tags?.[0]) params.append('tag', sample.tags[0]);
  const groupBy: GroupBy[] = [];
  if (random() < 0.3) groupBy.push('key');
  if (random() < 0.2) groupBy.push('identity');
  if (random() < 0.2) groupBy.push(pick(['tag', 'tags'] as const));
  const granularity = random() < 0.7 ? pick(HOUR_GRANULARITIES) : undefined;
  if (granularity) groupBy.push(granularity);
  for (const g of groupBy) params.append('groupBy', g);
  const span = granularity === 'hour' ? 3 * DAY_MS : 60 * DAY_MS;
  const start = NOW - Math.floor(random() * span);
  params.set('start', String(start));
  if (random() < 0.5) params.set('end', String(Math.min(NOW, start + Math.floor(random() * span))));
  if (random() < 0.3) params.set('limit', String(1 + Math.floor(random() * 20)));
  if (random() < 0.3) params.set('orderBy', 'total');
  if (random() < 0.3) params.set('order', pick(['asc', 'desc']));
  return params.toString();
}

it(
  `counts ${EVENTS} events exactly through worker kills and a master failover, and two query services agree with the oracle (seed ${SEED})`,
  { timeout: scaled(600_000) },
  async () => {
    const events = makeEvents();
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    const second = { INGEST_METRICS_PORT: String(await privatePort()) };
    const queryPorts = [t.port, await privatePort()];

    let a = start('ingest');
    const b = start('ingest', second);
    const compactor = start('compactor');
    const queryMetricsPorts = [t.queryMetricsPort, await privatePort()];
    const queries = queryPorts.map((port, n) =>
      start('query', { PORT: String(port), QUERY_METRICS_PORT: String(queryMetricsPorts[n]) }),
    );
    await Promise.all([
      a.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`),
      b.waitForHealth(`http://127.0.0.1:${second.INGEST_METRICS_PORT}/health`),
      compactor.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`),
      ...queries.map((q, n) => q.waitForHealth(`http://127.0.0.1:${queryPorts[n]}/health`)),
    ]);

    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    // The last 15% of the stream trickles (250/s) until the last kill: every kill lands mid-stream, however
    // slow the machine.
    let killed = false;
    const produced = produceWithTail(
      producer,
      [...eventMessages(events, (e) => (e.apiId === HOT ? 'apiId+keyId' : 'apiId'))],
      { topic: t.topic, rate: 5_000, chunk: 1_000 },
      { until: () => killed, tailRate: 250, tailChunk: 250 },
    ).finally(() => producer.disconnect());

    // Mid-stream: worker a SIGKILLed, the hot API's master SIGKILLed, worker a SIGKILLed again.
    const random = seededRandom(SEED + 2);
    await sleep(4_000 + random() * 3_000);
    await a.kill('SIGKILL');
    a = start('ingest');
    await sleep(3_000 + random() * 3_000);
    const master = await cluster.masterOf(`{${HOT}}`);
    const promoted = await cluster.killMaster(master);
    expect(await cluster.masterOf(`{${HOT}}`)).toBe(promoted);
    // Back as a replica of the promoted node: WAIT 1 can be met there again.
    await cluster.restartNode(master);
    await sleep(2_000 + random() * 3_000);
    await a.kill('SIGKILL');
    a = start('ingest');
    killed = true;
    await produced;

    const ends = await topicEnds(kafka, [t.topic]);
    expect(ends.reduce((sum, e) => sum + e.last + 1, 0)).toBe(EVENTS);
    await waitFor(() => caughtUp(redis, space, ends), {
      timeoutMs: 300_000,
      intervalMs: 500,
      message: 'both workers caught up',
    });
    const apis = [...new Set(events.map((e) => e.apiId))].sort();
    await waitFor(
      async () => {
        const cmps = await Promise.all(apis.map((api) => readCompactedThrough(redis, space, api)));
        return cmps.every((cmp) => cmp !== null && cmp >= hourOf(NOW) - 1);
      },
      { timeoutMs: 300_000, intervalMs: 500, message: 'every closed hour compacted' },
    );

    // Every cube against the events.
    expect(await storeDiff(redis, space, events, { now: NOW, hourRetentionMs: HOUR_RETENTION_MS })).toEqual(
      [],
    );

    // Random queries to both query services against the oracle.
    const workspaceOf = new Map(events.map((e) => [e.apiId, e.workspaceId]));
    const keys = new Map<string, string>();
    for (const workspaceId of new Set(workspaceOf.values())) {
      const root = await createRootKey(redis, t.keyPrefix, {
        workspaceId,
        permissions: ['api.*.read_api'],
        now: Date.now(),
      });
      keys.set(workspaceId, root.key);
    }
    const retention = { hourMs: HOUR_RETENTION_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
    const questions = seededRandom(SEED + 3);
    let rows = 0;
    for (let n = 0; n < QUERIES_PER_SERVICE; n++) {
      const qs = randomQuery(questions, events);
      const parsed = parseQuery(new URLSearchParams(qs), { now: NOW, maxRows: 100_000 });
      if (!parsed.ok) throw new Error(`generated an invalid query ${qs}: ${JSON.stringify(parsed.errors)}`);
      const expected = oracle(events, parsed.query, { now: NOW, maxRows: 100_000, retention });
      for (const port of queryPorts) {
        const response = await fetch(`http://127.0.0.1:${port}/v1/analytics.getVerifications?${qs}`, {
          headers: { authorization: `Bearer ${keys.get(workspaceOf.get(parsed.query.apiId)!)}` },
        });
        const body: unknown = await response.json();
        const context = `seed ${SEED}, query #${n} on :${port}: ${qs}`;
        if (!expected.ok) {
          expect(response.status, context).toBe(400);
          continue;
        }
        // The body in the message only on a failure (serialising every answer costs seconds).
        const statusContext =
          response.status === 200 ? context : `${context}\n${JSON.stringify(body).slice(0, 300)}`;
        expect(response.status, statusContext).toBe(200);
        expectJsonEqual(body, expected.rows, context);
        rows += expected.rows.length;
      }
    }
    expect(rows, 'the queries reach rows with data').toBeGreaterThan(QUERIES_PER_SERVICE);
    process.stderr.write(
      `[cluster-scale-out] seed ${SEED}: ${EVENTS} events (${events.filter((e) => e.apiId === HOT).length} ` +
        `of ${HOT} over 4 partitions), worker SIGKILLed twice, master :${master} failed over to :${promoted}; ` +
        `every cube exact, ${QUERIES_PER_SERVICE} queries x 2 services equal the oracle (${rows} rows)\n`,
    );
  },
);

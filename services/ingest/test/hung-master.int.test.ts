// A Redis Cluster master that hangs instead of dying (SIGSTOP: a host that stopped answering; its clients'
// connections stay open) under a running ingest worker and compactor, and never comes back. Its replica takes
// over. The worker must go on, on the promoted replica: before the slot-map refresh (libs/store connection.ts)
// and the command timeout (INGEST_REDIS_TIMEOUT_MS) it waited on the hung node for good, silently.
// The compactor must go on too. It needs no command timeout: once a slot refresh drops the hung node, ioredis's
// Cluster closes the connection to it and sends the commands that were waiting there again, to the promoted
// replica (its "Connection is closed" retry); the compaction scripts are idempotent. The frozen master holds
// BullMQ's slot ({bull}) as well as an API's, so the queue's own connections meet it too.
//
// INGEST_WAIT_REPLICAS=0 (the default): with the old master frozen the new one has no replica, and WAIT 1
// could not be met until an operator adds one. So the writes that only the frozen master had acknowledged
// are lost, as Redis's asynchronous replication loses them (docs/deploy.md, "Durability on a replicated
// Redis"): the APIs on that master may count fewer events, never more; every other API counts exactly.
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { hourOf, DAY_MS } from '@va/core';
import { readCompactedThrough, type KeySpace } from '@va/store';
import { createGenerator, eventMessages, produceWithTail, topicEnds } from '@va/testkit';
import { caughtUp, connectTarget, dumpApiCounts, expectedCounts, storeDiff } from '@va/store/testing';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  startService,
  startTestCluster,
  testEnv,
  waitFor,
} from '@va/testkit/support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

it('a hung cluster master: the worker and the compactor go on on the promoted replica, and no event counts twice', async () => {
  const t = await testEnv('hung master');
  const cluster = await startTestCluster();
  cleanups.push(() => cluster.stop());
  const topics = [t.topic, t.backfillTopic, t.dlqTopic];
  await createTopics(t.kafkaBrokers, topics, 4);
  cleanups.push(() => deleteTopics(t.kafkaBrokers, topics));
  const worker = startService('ingest', {
    ...t.env,
    ...cluster.env,
    ...FAST_GROUP,
    INGEST_REDIS_TIMEOUT_MS: '3000',
  });
  cleanups.push(() => worker.kill('SIGKILL'));
  // A fixed clock: the closed bound cannot move on while the rollups are compared (an hour may end meanwhile).
  const now = Date.now();
  const compactor = startService('compactor', {
    ...t.env,
    ...cluster.env,
    FIXED_NOW_MS: String(now),
    COMPACTION_EVERY_MS: '500',
    COMPACTION_GRACE_MS: '0',
  });
  cleanups.push(() => compactor.kill('SIGKILL'));
  await Promise.all([
    worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`),
    compactor.waitForHealth(`http://127.0.0.1:${t.compactorMetricsPort}/health`),
  ]);

  const generator = createGenerator({
    seed: 17,
    apis: 6,
    keys: 2_000,
    identities: 300,
    startMs: now - 3 * 3_600_000,
    spanMs: 3 * 3_600_000,
  });
  const events: VerificationEvent[] = Array.from({ length: 30_000 }, () => generator.next());
  const apis = [...new Set(events.map((e) => e.apiId))].sort();
  // Where each API's keys live ({apiId} is their hash tag), while every master still answers.
  const masterOf = new Map(
    await Promise.all(apis.map(async (api) => [api, await cluster.masterOf(`{${api}}`)] as const)),
  );

  const kafka = new Kafka({ clientId: 'hung-master', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanups.push(() => producer.disconnect());
  // The last 15% trickles until the master is frozen: the freeze lands mid-stream on a slow machine too.
  let frozen = false;
  const produced = produceWithTail(
    producer,
    [...eventMessages(events)],
    { topic: t.topic, rate: 4_000, chunk: 500 },
    { until: () => frozen, tailRate: 200, tailChunk: 100 },
  );
  await sleep(3_000);
  const queueMaster = await cluster.masterOf('{bull}');
  const hungApi = apis.find((api) => masterOf.get(api) === queueMaster);
  if (!hungApi) throw new Error(`no API on the queue's master :${queueMaster}: change the seed`);
  const hung = masterOf.get(hungApi)!;
  await cluster.freezeMaster(hung);
  frozen = true;
  await produced;

  const redis = connectTarget(cluster.target, { maxRetriesPerRequest: null });
  redis.on('error', () => undefined);
  cleanups.push(async () => redis.disconnect());
  const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
  const ends = await topicEnds(kafka, [t.topic]);
  await waitFor(() => caughtUp(redis, space, ends), {
    timeoutMs: 120_000,
    intervalMs: 500,
    message: 'the worker caught up on the promoted replica',
  });

  // Every closed hour of every API compacted, the frozen master's API included (on its promoted replica).
  await waitFor(
    async () => {
      const cmps = await Promise.all(apis.map((api) => readCompactedThrough(redis, space, api)));
      return cmps.every((cmp) => cmp !== null && cmp >= hourOf(now) - 1);
    },
    { timeoutMs: 120_000, intervalMs: 500, message: 'every closed hour compacted' },
  );

  // The APIs of the other masters: every hour and month exact.
  const elsewhere = events.filter((e) => masterOf.get(e.apiId) !== hung);
  const problems = await storeDiff(redis, space, elsewhere, { now, hourRetentionMs: 35 * DAY_MS });
  let lost = 0;
  for (const [api, expected] of expectedCounts(events)) {
    if (masterOf.get(api) !== hung) continue;
    const { sum } = await dumpApiCounts(redis, space, api, 'h');
    expected.total.forEach((n, outcome) => {
      const stored = sum.total[outcome] ?? 0;
      if (stored > n) problems.push(`${api} outcome ${outcome}: ${stored} counted, ${n} events`);
      lost += n - stored;
    });
  }
  process.stderr.write(`[hung-master] events lost with the frozen master's unreplicated writes: ${lost}\n`);
  expect(problems).toEqual([]);
  expect(worker.child.exitCode).toBeNull();
  expect(compactor.child.exitCode).toBeNull();
});

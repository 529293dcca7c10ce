// Alert detection through faults (issue #44 "Exactly one alert id per crossing"): 2,000 identities under "each
// identity" rules at 3 levels, events streamed at a few thousand per second while the ingest worker is SIGKILLed
// at random moments (mid-batch, between a call and its staged chunks, between the apply and the watermark).
// Afterwards the crossings stream holds exactly the crossings the oracle computes from the events, each once.
import { Redis } from 'ioredis';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { expectedCrossings } from '@va/core';
import { alertKeys, createAlertRule, decodeCrossing, readWatermarks, type KeySpace } from '@va/store';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  startService,
  testEnv,
  waitFor,
  type ServiceProcess,
} from '@va/testkit/support';
import { alertTraffic, eventMessages, produceWithTail, seededRandom, topicEnds } from '@va/testkit';
import { caughtUp, deletePrefix } from '@va/store/testing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const API = 'api_alert_kill';
const EVENTS = 60_000;
const IDENTITIES = 2_000;
const KILLS = 6;

let ruleNo = 0;
const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: `rule_${(++ruleNo).toString(16).padStart(24, '0')}`,
  apiId: API,
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels: [5, 25, 40],
  createdAt: ruleNo,
  ...over,
});

const RULES = [
  rule({}),
  rule({ outcomes: ['VALID'], levels: [10, 20, 30] }),
  rule({ period: 'day', levels: [3, 8, 15] }),
  rule({ scope: { kind: 'eachKey' }, levels: [500, 1_000, 1_500] }),
];

const traffic = (seed: number): VerificationEvent[] =>
  alertTraffic({
    seed,
    events: EVENTS,
    identities: IDENTITIES,
    apiId: API,
    workspaceId: 'ws_alert_kill',
    requestPrefix: 'ak-',
  });

describe('alert detection under failure', () => {
  it('appends every crossing of the oracle exactly once while the worker is SIGKILLed at random moments', async () => {
    const t = await testEnv('ingest alerts kill');
    await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 4);
    // Calls of at most 300 writes: kills also land between a batch's call and its staged chunks.
    const env = { ...t.env, ...FAST_GROUP, INGEST_MAX_WRITES_PER_CALL: '300' };
    const kafka = new Kafka({ clientId: 'alerts-kill', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const redis = new Redis(t.redisUrl);
    cleanups.push(async () => {
      redis.disconnect();
      await producer.disconnect();
      await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
      await deletePrefix(t.redisUrl, t.keyPrefix);
    });
    const space: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    for (const r of RULES) await createAlertRule(redis, t.keyPrefix, r);
    const events = traffic(44);
    const expected = new Set(expectedCrossings(RULES, events).keys());

    let worker: ServiceProcess = startService('ingest', env);
    cleanups.push(() => worker.kill('SIGKILL'));
    let kills = 0;
    let producing = true;
    const produced = produceWithTail(
      producer,
      [...eventMessages(events)],
      { topic: t.topic, rate: 3_000, chunk: 300 },
      { until: () => kills >= KILLS, tailRate: 150, tailChunk: 30 },
    ).finally(() => (producing = false));
    const partitions = [0, 1, 2, 3].map((partition) => ({ topic: t.topic, partition }));
    const applied = async () =>
      (await readWatermarks(redis, space, partitions)).reduce<number>(
        (s, wm) => s + (wm === null ? 0 : wm + 1),
        0,
      );
    const random = seededRandom(9);
    while (kills < KILLS || producing) {
      const before = await applied();
      await waitFor(async () => (await applied()) > before || !producing, {
        timeoutMs: 60_000,
        intervalMs: 50,
        message: 'worker progress',
      });
      if (!producing && (await applied()) >= events.length) break;
      await sleep(random() * 1_500);
      await worker.kill('SIGKILL');
      kills++;
      worker = startService('ingest', env);
    }
    await produced;
    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 120_000, message: 'caught up' });

    const entries = await redis.xrange(alertKeys(t.keyPrefix, API).crossings, '-', '+');
    const ids = entries.map(([, fields]) => decodeCrossing(API, fields).alertId);
    process.stderr.write(
      `[alerts-kill] ${kills} worker SIGKILLs, ${events.length} events, ${ids.length} crossings appended, ` +
        `${expected.size} expected\n`,
    );
    expect(kills).toBeGreaterThanOrEqual(KILLS);
    expect(expected.size).toBeGreaterThan(3_000);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(expected);
  });
});

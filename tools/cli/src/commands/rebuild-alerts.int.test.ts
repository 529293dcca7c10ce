// `rebuild` and alert detection (docs/alerts.md "Detection"): the rebuild counts every event again, the alert
// counters too, into the new generation; every crossing it finds was appended before, so it appends none. After
// the switch the live worker goes on from the rebuilt counters: new events cross new levels once, as the oracle says.
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { DAY_MS, expectedCrossings } from '@va/core';
import {
  alertKeys,
  createAlertRule,
  decodeCrossing,
  generationRoot,
  readGeneration,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import {
  createTopics,
  deleteTopics,
  FAST_GROUP,
  killAllChildren,
  startService,
  testEnv,
  waitFor,
  type TestEnv,
} from '@va/testkit/support';
import { eventMessages, produceMessages, topicEnds } from '@va/testkit';
import { caughtUp, connectTarget, deletePrefix, keysMatching } from '@va/store/testing';
import { runCli } from '../testing/cli-process';

let t: TestEnv;
let env: Record<string, string>;
let redis: RedisClient;
let kafka: Kafka;

beforeAll(async () => {
  t = await testEnv('cli rebuild alerts');
  await createTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic], 2);
  env = { ...t.env, ...FAST_GROUP };
  redis = connectTarget(t.redis);
  kafka = new Kafka({ clientId: 'rebuild-alerts-test', brokers: t.kafkaBrokers, logLevel: logLevel.NOTHING });
});
afterAll(async () => {
  killAllChildren();
  redis.disconnect();
  await deleteTopics(t.kafkaBrokers, [t.topic, t.backfillTopic, t.dlqTopic]);
  await deletePrefix(t.redis, t.keyPrefix);
});

const API = 'api_rb_alerts';
const NOW = Date.now();
const space = (generation: number): KeySpace => ({ prefix: t.keyPrefix, generation });

let ruleNo = 0;
const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: `rule_${(++ruleNo).toString(16).padStart(24, '0')}`,
  apiId: API,
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels: [5, 15, 40],
  createdAt: ruleNo,
  ...over,
});
const RULES = [
  rule({}),
  rule({ scope: { kind: 'eachKey' }, period: 'day', levels: [3, 9] }),
  rule({ scope: { kind: 'api' }, outcomes: ['VALID'], levels: [100, 400, 700] }),
];

const event = (n: number): VerificationEvent => ({
  requestId: `rb-${n}`,
  time: NOW - ((n * 7_919_113) % (20 * DAY_MS)),
  workspaceId: 'ws_rb',
  apiId: API,
  keyId: `key_${n % 5}`,
  outcome: n % 4 === 0 ? 'FORBIDDEN' : 'VALID',
  ...(n % 6 !== 0 && { identity: { id: `id_${n % 17}`, externalId: `user_${n % 17}` } }),
});

async function produce(events: readonly VerificationEvent[]): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await produceMessages(producer, eventMessages(events), { topic: t.topic });
  await producer.disconnect();
}

async function settled(generation: number): Promise<void> {
  const ends = await topicEnds(kafka, [t.topic, t.backfillTopic]);
  await waitFor(() => caughtUp(redis, space(generation), ends), { timeoutMs: 120_000, message: 'caught up' });
}

async function streamIds(): Promise<string[]> {
  const entries = await redis.xrange(alertKeys(t.keyPrefix, API).crossings, '-', '+');
  return entries.map(([, fields]) => decodeCrossing(API, fields).alertId);
}

describe('rebuild with alert rules', () => {
  it('appends no crossing, and the live worker goes on from the rebuilt alert counters', async () => {
    for (const r of RULES) await createAlertRule(redis, t.keyPrefix, r);
    const worker = startService('ingest', env);
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    const events = Array.from({ length: 1_200 }, (_, n) => event(n));
    await produce(events);
    await settled(1);
    const before = await streamIds();
    expect(new Set(before)).toEqual(new Set(expectedCrossings(RULES, events).keys()));

    const rebuilt = await runCli(['rebuild', '--yes'], env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(await readGeneration(redis, t.keyPrefix)).toBe(2);
    expect(await streamIds()).toEqual(before);
    expect(await keysMatching(redis, `${generationRoot(t.keyPrefix, 2)}{${API}}:alerts:n:*`)).not.toEqual([]);

    // Live again, in generation 2: the counts go on from the rebuilt ones (a level crossed before is not
    // crossed again; the next levels are, once). The first 1,200 events may cross every level of the others
    // already (it depends on where now falls in its day), so a new identity's 20 events cross at least its
    // first level, in whichever month most of them fall.
    const more = [
      ...Array.from({ length: 800 }, (_, n) => event(1_200 + n)),
      ...Array.from({ length: 20 }, (_, n) => ({
        ...event(2_000 + n),
        identity: { id: 'id_new', externalId: 'user_new' },
      })),
    ];
    await produce(more);
    await settled(2);
    const after = await streamIds();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBe(new Set(after).size);
    expect(new Set(after)).toEqual(new Set(expectedCrossings(RULES, [...events, ...more]).keys()));
    expect(after.length).toBeGreaterThan(before.length);
    await worker.kill('SIGTERM');
  });
});

// Alert detection through the real ingest worker (Kafka + Redis), rules created as the API creates them
// (alert-rules.ts): the crossings stream holds exactly the crossings the oracle computes from the events, late
// events into closed periods included, each once; a SIGKILLed worker, a restarted one and a full replay of
// the topic (its watermarks deleted) append nothing more.
import { Partitioners, type Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { DAY_MS, expectedCrossings } from '@va/core';
import { alertKeys, createAlertRule, decodeCrossing, watermarkKey, type KeySpace } from '@va/store';
import { FAST_GROUP, startService, waitFor, type ServiceProcess, type TestEnv } from '@va/testkit/support';
import { eventMessages, produceMessages, topicEnds } from '@va/testkit';
import { caughtUp } from '@va/store/testing';
import type { Redis } from 'ioredis';
import { ingestFixture, type IngestFixture } from './fixture';

let fixture: IngestFixture | undefined;
let t: TestEnv;
let redis: Redis;
let kafka: Kafka;
let space: KeySpace;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  fixture = await ingestFixture('ingest alerts', 2);
  ({ t, redis, kafka } = fixture);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await fixture?.close();
});

const NOW = Date.now();
const APIS = ['api_al1', 'api_al2'];

let ruleNo = 0;
const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: `rule_${(++ruleNo).toString(16).padStart(24, '0')}`,
  apiId: 'api_al1',
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels: [5, 20, 60],
  createdAt: ruleNo,
  ...over,
});

const RULES = [
  rule({}),
  rule({ levels: [20, 40] }), // the same counter as the first
  rule({ scope: { kind: 'eachKey' }, outcomes: ['VALID'], period: 'day', levels: [4, 12] }),
  rule({ scope: { kind: 'api' }, tags: ['plan:pro'], levels: [50, 100, 10_000] }),
  rule({ scope: { kind: 'identity', externalId: 'user_3' }, period: 'day', levels: [2, 6] }),
  rule({ apiId: 'api_al2', scope: { kind: 'key', keyId: 'key_1' }, levels: [10, 30] }),
  rule({ apiId: 'api_al2', scope: { kind: 'eachIdentity' }, outcomes: ['RATE_LIMITED'], levels: [1, 3] }),
];

/** Times over the last 45 days: most in closed days, some in the previous month (late events). */
const event = (n: number): VerificationEvent => ({
  requestId: `al-${n}`,
  time: NOW - ((n * 7_919_113) % (45 * DAY_MS)),
  workspaceId: 'ws_alerts',
  apiId: APIS[n % 3 === 0 ? 1 : 0]!,
  keyId: `key_${n % 4}`,
  outcome: n % 5 === 0 ? 'RATE_LIMITED' : 'VALID',
  ...(n % 9 !== 0 && { identity: { id: `id_${n % 13}`, externalId: `user_${n % 13}` } }),
  tags: n % 2 === 0 ? ['plan:pro'] : ['plan:free'],
});

async function produce(events: readonly VerificationEvent[]): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await produceMessages(producer, eventMessages(events), { topic: t.topic });
  await producer.disconnect();
}

async function settled(): Promise<void> {
  const ends = await topicEnds(kafka, [t.topic]);
  await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 60_000, message: 'caught up' });
}

async function streamIds(): Promise<string[]> {
  const ids: string[] = [];
  for (const apiId of APIS) {
    for (const [, fields] of await redis.xrange(alertKeys(t.keyPrefix, apiId).crossings, '-', '+'))
      ids.push(decodeCrossing(apiId, fields).alertId);
  }
  return ids;
}

async function startWorker(): Promise<ServiceProcess> {
  const w = startService('ingest', { ...t.env, ...FAST_GROUP });
  await w.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
  return w;
}

describe('alert detection in the ingest worker', () => {
  it('appends exactly the oracle’s crossings, once each, through a kill, a restart and a full replay', async () => {
    for (const r of RULES) await createAlertRule(redis, t.keyPrefix, r);
    const events = Array.from({ length: 3_000 }, (_, n) => event(n));
    const expected = new Set(expectedCrossings(RULES, events).keys());
    expect(expected.size).toBeGreaterThan(200);

    worker = await startWorker();
    await produce(events.slice(0, 1_500));
    await worker.kill('SIGKILL');
    worker = await startWorker();
    await produce(events.slice(1_500));
    await settled();
    const first = await streamIds();
    expect(first.length).toBe(new Set(first).size);
    expect(new Set(first)).toEqual(expected);

    // The topic read again from its start (no watermark): every event is skipped by its API's offset.
    await worker.kill('SIGKILL');
    await redis.del(watermarkKey(space));
    worker = await startWorker();
    await settled();
    expect(await streamIds()).toEqual(first);
  });
});

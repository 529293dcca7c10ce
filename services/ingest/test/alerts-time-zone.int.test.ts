// Alert periods in a rule's time zone through the real ingest worker (Kafka + Redis; docs/alerts.md "Rules"):
// an each-identity day rule in Asia/Kolkata (+05:30) counts local days, each UTC hour in the day holding its
// start (the UTC hour a local midnight falls into counts whole in the earlier day, as a query's day slices
// count it), and the crossings stream holds exactly the oracle's crossings for that zone, with periodStart
// at local midnight (18:30Z); the same rule in UTC finds other crossings.
import { Partitioners, type Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCrossing, AlertRule, VerificationEvent } from '@va/contracts';
import { alertPeriodStart, DAY_MS, expectedCrossings } from '@va/core';
import { alertKeys, createAlertRule, decodeCrossing, type KeySpace } from '@va/store';
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
  fixture = await ingestFixture('ingest alerts time zone', 1);
  ({ t, redis, kafka } = fixture);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await fixture?.close();
});

const API = 'api_alerts_tz';
const MIN = 60_000;
/** A local midnight in Kolkata three days ago: 18:30Z, inside the UTC hour 18:00Z. */
const MIDNIGHT = alertPeriodStart('day', Date.now() - 3 * DAY_MS, 'Asia/Kolkata');

const rule = (n: number, timeZone: string): AlertRule => ({
  ruleId: `rule_${n.toString(16).padStart(24, '0')}`,
  apiId: API,
  scope: { kind: 'eachIdentity' },
  period: 'day',
  levels: [2, 3, 20],
  createdAt: n,
  timeZone,
});
const KOLKATA = rule(1, 'Asia/Kolkata');
const UTC = rule(2, 'UTC');

let n = 0;
const event = (user: string, time: number): VerificationEvent => ({
  requestId: `tz-${n++}`,
  time,
  workspaceId: 'ws_alerts_tz',
  apiId: API,
  keyId: 'key_1',
  outcome: 'VALID',
  identity: { id: `id_${user}`, externalId: user },
});

const EVENTS = [
  // alice: three events in the UTC hour of local midnight, one after it: all in the earlier local day.
  event('alice', MIDNIGHT - 25 * MIN),
  event('alice', MIDNIGHT - 10 * MIN),
  event('alice', MIDNIGHT + 10 * MIN),
  // bob: one in that hour (the earlier day), two after it (the later day).
  event('bob', MIDNIGHT + 5 * MIN),
  event('bob', MIDNIGHT + 40 * MIN),
  event('bob', MIDNIGHT + 80 * MIN),
  // carol: two in the earlier local day and one in the later, all in one UTC day.
  event('carol', MIDNIGHT - 6 * 60 * MIN),
  event('carol', MIDNIGHT - 60 * MIN),
  event('carol', MIDNIGHT + 90 * MIN),
  // and a crowd over four days around it.
  ...Array.from({ length: 900 }, (_, i) =>
    event(`user_${i % 17}`, MIDNIGHT - 2 * DAY_MS + ((i * 7_919_113) % (4 * DAY_MS))),
  ),
];

async function crossings(): Promise<AlertCrossing[]> {
  const entries = await redis.xrange(alertKeys(t.keyPrefix, API).crossings, '-', '+');
  return entries.map(([, fields]) => decodeCrossing(API, fields));
}

describe('alert periods in a time zone, in the ingest worker', () => {
  it('an each-identity day rule in Asia/Kolkata crosses at the local day; the stream holds the oracle’s crossings', async () => {
    for (const r of [KOLKATA, UTC]) await createAlertRule(redis, t.keyPrefix, r);
    worker = startService('ingest', { ...t.env, ...FAST_GROUP });
    await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await produceMessages(producer, eventMessages(EVENTS), { topic: t.topic });
    await producer.disconnect();
    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 60_000, message: 'caught up' });

    const found = await crossings();
    const ids = found.map((c) => c.alertId);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(expectedCrossings([KOLKATA, UTC], EVENTS).keys()));

    const local = (member: string) =>
      found
        .filter((c) => c.ruleId === KOLKATA.ruleId && c.member === member)
        .map((c) => [c.periodStart - MIDNIGHT, c.level]);
    // The earlier local day starts 24 hours before MIDNIGHT (Kolkata keeps +05:30 all year).
    expect(local('alice')).toEqual([
      [-DAY_MS, 2],
      [-DAY_MS, 3],
    ]);
    expect(local('bob')).toEqual([[0, 2]]);
    expect(local('carol')).toEqual([[-DAY_MS, 2]]);
    for (const c of found.filter((x) => x.ruleId === KOLKATA.ruleId))
      expect(c.periodStart % DAY_MS).toBe(DAY_MS - 5.5 * 3_600_000);
    // In UTC carol's three events are one day.
    const utcDay = Math.floor(MIDNIGHT / DAY_MS) * DAY_MS;
    expect(
      found
        .filter((c) => c.ruleId === UTC.ruleId && c.member === 'carol')
        .map((c) => [c.periodStart, c.level]),
    ).toContainEqual([utcDay, 3]);
  });
});

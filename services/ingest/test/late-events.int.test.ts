// Late and out-of-order events (docs/api.md#the-event, #retention): each lands in its own hour, or, past the hour
// retention, in its day and month rollups; an hour already compacted gets its rollups updated in the
// same step. A real worker process, real Kafka and Redis.
import type { Redis } from 'ioredis';
import { Partitioners, type Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS, HOUR_MS, dayOf, hourOf, monthOf } from '@va/core';
import { apiKeys, type KeySpace, type Resolution } from '@va/store';
import { type TestEnv, startService, waitFor, type ServiceProcess } from '@va/testkit/support';
import { ingestFixture, type IngestFixture } from './fixture';
import { eventMessages, produceMessages } from '@va/testkit';
import { topicEnds } from '@va/testkit';
import { caughtUp, dumpApiCounts } from '@va/store/testing';

let fixture: IngestFixture | undefined;
let t: TestEnv;
let redis: Redis;
let kafka: Kafka;
let worker: ServiceProcess;
let space: KeySpace;

beforeAll(async () => {
  fixture = await ingestFixture('ingest late events', 2);
  ({ t, redis, kafka } = fixture);
  space = { prefix: t.keyPrefix, generation: 1 };
  worker = startService('ingest', t.env);
  await worker.waitForHealth(`http://127.0.0.1:${t.ingestMetricsPort}/health`);
});

afterAll(async () => {
  await worker?.kill('SIGTERM');
  await fixture?.close();
});

const event = (apiId: string, time: number, n: number): VerificationEvent => ({
  requestId: `${apiId}-${time}-${n}`,
  time,
  workspaceId: 'ws_late',
  apiId,
  keyId: `key_${n % 3}`,
  outcome: n % 4 === 0 ? 'RATE_LIMITED' : 'VALID',
  tags: n % 2 === 0 ? ['late'] : [],
});

const many = (apiId: string, time: number, count: number) =>
  Array.from({ length: count }, (_, n) => event(apiId, time + n, n));

/** Total count per bucket of resolution r. */
async function totals(apiId: string, r: Resolution): Promise<Record<number, number>> {
  const { perBucket } = await dumpApiCounts(redis, space, apiId, r);
  return Object.fromEntries([...perBucket].map(([b, c]) => [b, c.total.reduce((x, y) => x + y, 0)]));
}

describe('late events', () => {
  it('counts every late event in its own hour, or in its rollups once compacted (past the hour retention: rollups only)', async () => {
    // Times in the middle of their hours, so that `time + n` stays in the same hour.
    const mid = (ms: number) => hourOf(ms) * HOUR_MS + HOUR_MS / 2;
    const now = Math.min(mid(Date.now()), Date.now());
    const h = (ms: number) => hourOf(ms);
    const fiveHoursAgo = mid(now - 5 * HOUR_MS);
    const threeDaysAgo = mid(now - 3 * DAY_MS);
    const fortyDaysAgo = mid(now - 40 * DAY_MS); // past the 35-day hour retention
    const fiveHundredDaysAgo = mid(now - 500 * DAY_MS); // past the 400-day day retention
    const tenHoursAgo = mid(now - 10 * HOUR_MS);

    // api_cmp and api_old: the compactor already compacted through two hours ago.
    await redis.set(apiKeys(space, 'api_cmp').compactedThrough, String(h(now - 2 * HOUR_MS)));
    await redis.set(apiKeys(space, 'api_old').compactedThrough, String(h(now - 2 * HOUR_MS)));

    const events = [
      // out of order on purpose: newest first, then older and older
      ...many('api_late', now, 10),
      ...many('api_late', fiveHoursAgo, 20),
      ...many('api_late', threeDaysAgo, 30),
      ...many('api_late', fortyDaysAgo, 40),
      ...many('api_late', fiveHundredDaysAgo, 50),
      ...many('api_cmp', tenHoursAgo, 60),
      ...many('api_cmp', now, 70),
      ...many('api_old', fortyDaysAgo, 40),
      ...many('api_old', fiveHundredDaysAgo, 50),
    ];
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await produceMessages(producer, eventMessages(events), { topic: t.topic });
    await producer.disconnect();
    const ends = await topicEnds(kafka, [t.topic]);
    await waitFor(() => caughtUp(redis, space, ends), { timeoutMs: 60_000, message: 'caught up' });

    // Nothing compacted yet: every hour waits in its hour bucket for the compactor, even past
    // the hour retention (it merges them, then they expire: docs/rollups.md "Retention").
    expect(await totals('api_late', 'h')).toEqual({
      [h(now)]: 10,
      [h(fiveHoursAgo)]: 20,
      [h(threeDaysAgo)]: 30,
      [h(fortyDaysAgo)]: 40,
      [h(fiveHundredDaysAgo)]: 50,
    });
    expect(await totals('api_late', 'd')).toEqual({});
    expect(await totals('api_late', 'm')).toEqual({});

    // Compacted hours past the hour retention: rollups only.
    expect(await totals('api_old', 'h')).toEqual({});
    expect(await totals('api_old', 'd')).toEqual({ [dayOf(fortyDaysAgo)]: 40 });
    const months: Record<number, number> = {};
    for (const [ms, n] of [
      [fortyDaysAgo, 40],
      [fiveHundredDaysAgo, 50],
    ] as const) {
      months[monthOf(ms)] = (months[monthOf(ms)] ?? 0) + n;
    }
    expect(await totals('api_old', 'm')).toEqual(months);

    // Compacted hour: hour and its rollups in one step; the current hour (after cmp): hour only.
    expect(await totals('api_cmp', 'h')).toEqual({ [h(tenHoursAgo)]: 60, [h(now)]: 70 });
    expect(await totals('api_cmp', 'd')).toEqual({ [dayOf(tenHoursAgo)]: 60 });
    expect(await totals('api_cmp', 'm')).toEqual({ [monthOf(tenHoursAgo)]: 60 });

    // Dimensions survive the trip into the rollups.
    const day = (await dumpApiCounts(redis, space, 'api_old', 'd')).sum;
    expect(day.byTagSet.get('late')?.reduce((a, b) => a + b, 0)).toBe(20);
    expect(day.byTagSet.get('')?.reduce((a, b) => a + b, 0)).toBe(20);
    expect(day.total[4]).toBe(10); // RATE_LIMITED: n % 4 === 0 of 40
  });
});

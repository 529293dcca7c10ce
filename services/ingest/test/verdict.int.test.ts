// Issue #17.4: one Kafka record, one verdict. A batch is processed again after a crash (the
// worker died after producing dead letters or after applying some APIs, before the watermark
// moved). The worker's clock has moved on since; the record must get the verdict it got the first
// time: dead-lettered once and never counted, or counted once and never dead-lettered.
//
// Real Redis; the batch processor with an injected clock (no Kafka: the batches are built here,
// each message with the Kafka timestamp the broker gave it).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, hourOf } from '@va/core';
import { watermarkKey } from '@va/store';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { deletePrefix, dumpApiCounts } from '@va/store/testing';
import type { BatchMessage, PartitionBatch } from '../src/batch-processor';
import { BatchProcessor } from '../src/batch-processor';
import type { DeadLetter } from '../src/dead-letter';

let t: TestEnv;
let redis: Redis;

beforeAll(async () => {
  t = await testEnv('ingest verdict');
  redis = new Redis(t.redisUrl);
});
afterAll(async () => {
  redis.disconnect();
  await deletePrefix(t.redisUrl, t.keyPrefix);
});

const MIN = 60_000;

function message(offset: number, apiId: string, time: number, receivedAt: number): BatchMessage {
  const event = {
    requestId: `r${offset}`,
    time,
    workspaceId: 'ws_1',
    apiId,
    keyId: 'key_1',
    outcome: 'VALID',
  };
  return {
    offset: String(offset),
    key: Buffer.from(apiId),
    value: Buffer.from(JSON.stringify(event)),
    timestamp: String(receivedAt),
  };
}

/** A batch processor whose clock the test moves, recording what it dead-letters. */
function processor(clock: { now: number }, retention: { hourMs: number; dayMs: number; monthMs: number }) {
  const dead: DeadLetter[] = [];
  const p = new BatchProcessor({
    redis,
    prefix: t.keyPrefix,
    retention,
    clock: () => clock.now,
    deadLetter: async (records) => {
      dead.push(...records);
    },
  });
  return { p, dead };
}

const total = async (apiId: string) =>
  (await dumpApiCounts(redis, { prefix: t.keyPrefix, generation: 1 }, apiId, 'h')).sum.total.reduce(
    (a, b) => a + b,
    0,
  );

describe('a record processed again after a crash', () => {
  it('an event 5 min 30 s in the future stays dead-lettered when the clock has caught up', async () => {
    const received = Date.UTC(2026, 10, 20, 12, 0);
    const clock = { now: received };
    const retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
    const batch: PartitionBatch = {
      topic: 'verdict-future',
      partition: 0,
      messages: [message(0, 'api_future', received + 5 * MIN + 30_000, received)],
      lastOffset: 0,
    };

    // First delivery: dead-lettered; the worker dies before the watermark moves.
    const first = processor(clock, retention);
    const prepared = await first.p.prepare(batch, null);
    expect(prepared.status).toBe('prepared');
    expect(first.dead.map((d) => d.reason)).toEqual(['future_time']);

    // Redelivered one minute later to a new worker: the same verdict, nothing counted.
    clock.now = received + MIN;
    const second = processor(clock, retention);
    const result = await second.p.process(batch, null);
    expect(result).toMatchObject({ status: 'applied', applied: 0, deadLettered: 1 });
    expect(second.dead.map((d) => d.reason)).toEqual(['future_time']);
    expect(await total('api_future')).toBe(0);
  });

  it('a counted event is not dead-lettered as expired when it comes again after its retention', async () => {
    // Counted now (Redis expires keys by the real clock, so the first delivery is real time);
    // redelivered 80 days later, when the 40-day retention of its month has passed.
    const retention = { hourMs: 40 * DAY_MS, dayMs: 40 * DAY_MS, monthMs: 40 * DAY_MS };
    const start = Date.now();
    const time = start - 30 * MIN;
    const clock = { now: start };
    const batch: PartitionBatch = {
      topic: 'verdict-expired',
      partition: 0,
      messages: [message(0, 'api_expired', time, time + 1_000)],
      lastOffset: 0,
    };

    // First delivery: counted (the API's offset moved); the watermark is lost with the crash.
    const first = processor(clock, retention);
    expect(await first.p.process(batch, null)).toMatchObject({ status: 'applied', applied: 1 });
    await redis.hdel(watermarkKey({ prefix: t.keyPrefix, generation: 1 }), 'verdict-expired/0');
    expect(first.dead).toEqual([]);
    expect(await total('api_expired')).toBe(1);

    // Redelivered after the month ended and its retention passed: still counted once, no dead letter.
    clock.now = start + 80 * DAY_MS;
    expect(hourOf(time)).toBeLessThan(hourOf(clock.now - 40 * DAY_MS));
    const second = processor(clock, retention);
    const result = await second.p.process(batch, null);
    expect(second.dead.map((d) => d.reason)).toEqual([]);
    expect(result).toMatchObject({ status: 'applied', applied: 0, skipped: 1, deadLettered: 0 });
  });
});

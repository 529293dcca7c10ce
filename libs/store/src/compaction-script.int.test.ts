// The compactNextHour script on its own against a real Redis: its month arithmetic against libs/core's
// calendar, its replies (held, staged, hour, done), and a reader's hold on compaction.
import { describe, expect, it } from 'vitest';
import { DAY_MS, hourOf, hoursOfMonth, monthStart } from '@va/core';
import { drainStaged } from './apply';
import {
  compactApi,
  COMPACTION_HOLD_MAX_MS,
  COMPACTION_HOLD_MS,
  holdCompaction,
  readCompactedThrough,
  releaseCompaction,
} from './compaction';
import { apiKeys } from './keys';
import { compactNextHour } from './scripts/compaction-scripts';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION } from './testing/ingest-events';

const retention = TEST_RETENTION;
const H = (iso: string) => hourOf(Date.parse(`${iso}:00:00Z`));

const db = fileRedis('store-compaction-script');
const { space } = db;
const writer = (apiId: string, now: number) => new Ingest(db.redis, space, retention, apiId, now);

const compact = (apiId: string, closedBound: number, now: number) =>
  compactApi(db.redis, space, apiId, { closedBound, retention, now });

describe('compactNextHour calendar (Lua month arithmetic against libs/core)', () => {
  it('puts the first and last hour of every month 1970..2199 in the right month with the right expiry', async () => {
    const api = 'api_calendar';
    const keys = apiKeys(space, api);
    const months = Array.from({ length: 230 * 12 }, (_, m) => m);
    // Write counters directly (the layout the ingest script writes): t cube, parts, idx:h.
    const write = db.redis.pipeline();
    for (const m of months) {
      const [first, last] = hoursOfMonth(m);
      for (const h of [first, last]) {
        write.hincrby(keys.cube('h', h, 't'), '0', 1);
        write.sadd(keys.parts('h', h), 't');
        write.zadd(keys.bucketIndex('h'), h, h);
      }
    }
    await write.exec();
    // Retention of 300 years: every rollup is still retained (Redis expires by its own clock).
    const long = { hourMs: DAY_MS, dayMs: 300 * 366 * DAY_MS, monthMs: 300 * 366 * DAY_MS };
    const r = await compactApi(db.redis, space, api, {
      closedBound: hoursOfMonth(months.at(-1)!)[1],
      retention: long,
      now: 0,
    });
    expect(r.hoursCompacted).toBe(months.length * 2);
    const check = db.redis.pipeline();
    for (const m of months) {
      check.hget(keys.cube('m', m, 't'), '0');
      check.pexpiretime(keys.cube('m', m, 't'));
    }
    const replies = (await check.exec())!.map(([, v]) => v);
    months.forEach((m, n) => {
      expect([m, replies[2 * n]]).toEqual([m, '2']);
      expect([m, replies[2 * n + 1]]).toEqual([m, monthStart(m + 1) + long.monthMs]);
    });
    // Leap days: Feb 29 exists in 2000, 2028, not in 2100.
    const feb = (y: number) => (y - 1970) * 12 + 1;
    expect(hoursOfMonth(feb(2000))[1] - hoursOfMonth(feb(2000))[0] + 1).toBe(29 * 24);
    expect(hoursOfMonth(feb(2100))[1] - hoursOfMonth(feb(2100))[0] + 1).toBe(28 * 24);
    expect(await db.redis.zcard(keys.bucketIndex('m'))).toBe(months.length);
    expect(await db.redis.zcard(keys.bucketIndex('d'))).toBe(months.length * 2);
  });
});

describe('a reader holding compaction', () => {
  it('makes compactApi wait until the hold is gone, then compact as usual', async () => {
    const api = 'api_held';
    const now = Date.parse('2028-03-02T12:30:00Z');
    await writer(api, now).write([{ hour: H('2028-03-01T05'), key: 'k', outcome: 0 }]);
    // Longer than the shortest hold, for a loaded machine; none compacted yet: no point to plan with.
    expect(await holdCompaction(db.redis, space, api, 1_500)).toBeNull();
    const compacting = compact(api, H('2028-03-01T10'), now);
    // Held: the point has not moved while the hold lasts.
    expect(await db.redis.exists(apiKeys(space, api).compactionHold)).toBe(1);
    expect(await readCompactedThrough(db.redis, space, api)).toBeNull();
    expect(await compacting).toMatchObject({
      hoursCompacted: 1,
      compactedThrough: H('2028-03-01T10'),
      done: true,
    });
  });
  it('returns the point it holds, and holds for the time asked, within its bounds', async () => {
    const api = 'api_held_point';
    const now = Date.parse('2028-03-02T12:30:00Z');
    await writer(api, now).write([{ hour: H('2028-03-01T05'), key: 'k', outcome: 0 }]);
    await compact(api, H('2028-03-01T07'), now);
    const hold = apiKeys(space, api).compactionHold;
    expect(await holdCompaction(db.redis, space, api, 2_000)).toBe(H('2028-03-01T07'));
    expect(await db.redis.pttl(hold)).toBeGreaterThan(1_000);
    await holdCompaction(db.redis, space, api, 1);
    expect(await db.redis.pttl(hold)).toBeLessThanOrEqual(COMPACTION_HOLD_MS);
    expect(await db.redis.pttl(hold)).toBeGreaterThan(0);
    await holdCompaction(db.redis, space, api, 3_600_000);
    expect(await db.redis.pttl(hold)).toBeLessThanOrEqual(COMPACTION_HOLD_MAX_MS);
    expect(await db.redis.pttl(hold)).toBeGreaterThan(COMPACTION_HOLD_MAX_MS - 1_000);
    await releaseCompaction(db.redis, space, api);
    expect(await db.redis.exists(hold)).toBe(0);
  });
});

describe('compactNextHour script contract', () => {
  it('answers held while a reader holds compaction, staged while chunks wait, then hour (h, fields) and done (cmp)', async () => {
    const api = 'api_contract';
    const keys = apiKeys(space, api);
    await db.redis.hincrby(keys.cube('h', 100, 't'), '3', 7);
    await db.redis.sadd(keys.parts('h', 100), 't');
    await db.redis.zadd(keys.bucketIndex('h'), 100, 100);
    const forever = 300 * 366 * DAY_MS;
    const keep = { hourMs: forever, dayMs: forever, monthMs: forever };
    const next = (closedBound: number) =>
      compactNextHour(db.redis, space, api, { closedBound, now: 0, retention: keep });
    // A staged chunk (applyStagedChunk's layout) of hour 100: applied before the hour is compacted.
    await db.redis.rpush(keys.stage, '1 h 100 0 1 t 1 3 5 0');
    expect(await next(200)).toEqual({ kind: 'staged' });
    expect(await drainStaged(db.redis, space, [api])).toBe(1);
    expect(await db.redis.hget(keys.cube('h', 100, 't'), '3')).toBe('12');
    await holdCompaction(db.redis, space, api);
    expect(await db.redis.pttl(keys.compactionHold)).toBeGreaterThan(0);
    expect(await next(200)).toEqual({ kind: 'held' });
    expect(await db.redis.exists(keys.compactedThrough)).toBe(0);
    await db.redis.del(keys.compactionHold);
    expect(await next(200)).toEqual({ kind: 'hour', hour: 100, fields: 1 });
    expect(await next(200)).toEqual({ kind: 'done', cmp: 200 });
    expect(await next(150)).toEqual({ kind: 'done', cmp: 200 });
    // 7 written before, 5 staged and applied before the hour was compacted.
    expect(await db.redis.hget(keys.cube('d', 4, 't'), '3')).toBe('12');
    expect(await db.redis.hget(keys.cube('m', 0, 't'), '3')).toBe('12');
    expect(await db.redis.pexpiretime(keys.cube('d', 4, 't'))).toBe(5 * DAY_MS + forever);
    // The merged hour gets its expiry only now (ingest wrote it without one).
    expect(await db.redis.pexpiretime(keys.cube('h', 100, 't'))).toBe(101 * 3_600_000 + forever);
    expect(await db.redis.pexpiretime(keys.parts('h', 100))).toBe(101 * 3_600_000 + forever);
  });
});

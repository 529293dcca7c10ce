// compactNextHour / trimIndexes against a real Redis, with hours written through the ingest
// engineer's store write path (assignCodes + expand + applyApiBatch, CAS on cmp included).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import {
  DAY_MS,
  dayOfHour,
  expiresAt,
  hourOf,
  hoursOfMonth,
  monthOfHour,
  monthStart,
  type Retention,
} from '@va/core';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { connectTarget, deletePrefix, type DecodedCounts, dumpApiCounts } from './testing';
import { expand, TupleCounter } from './aggregate';
import { applyApiBatches, drainStaged } from './apply';
import {
  compactApi,
  COMPACTION_HOLD_MAX_MS,
  COMPACTION_HOLD_MS,
  compactionStatus,
  holdCompaction,
  readCompactedThrough,
  releaseCompaction,
} from './compaction';
import { DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys, type KeySpace } from './keys';
import { sealBucket } from './seal';
import { compactNextHour, trimIndexes } from './scripts/compaction-scripts';
import { beginSeal } from './scripts/seal-scripts';
import { type RedisClient } from '@va/store';

const retention: Retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
const H = (iso: string) => hourOf(Date.parse(`${iso}:00:00Z`));

let t: TestEnv;
let redis: RedisClient;
let space: KeySpace;

beforeAll(async () => {
  t = await testEnv('compaction');
  redis = connectTarget(t.redis);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

interface TestEvent {
  hour: number;
  key: string;
  tags?: string[];
  identity?: string;
  outcome: number;
}

/** Writes events the way the ingest worker does: codes, pre-aggregation, applyApiBatch with both CAS. */
class Ingest {
  private offset = -1;
  private readonly dicts: DictionaryWriter;
  constructor(
    private readonly apiId: string,
    private readonly now: number,
  ) {
    this.dicts = new DictionaryWriter(redis, space);
  }

  async write(events: readonly TestEvent[]): Promise<void> {
    const missing = emptyMissing();
    for (const e of events) {
      missing.k.add(e.key);
      missing.s.add([...(e.tags ?? [])].sort().join(','));
      if (e.identity) missing.i.add(`${e.identity}\nx-${e.identity}`);
    }
    await this.dicts.assign(new Map([[this.apiId, missing]]));
    const codes = this.dicts.codesOf(this.apiId);
    const counter = new TupleCounter();
    for (const e of events) {
      const i = e.identity ? codes.i.get(`${e.identity}\nx-${e.identity}`)! : -1;
      counter.add(
        e.hour,
        codes.k.get(e.key)!,
        i,
        codes.s.get([...(e.tags ?? [])].sort().join(','))!,
        e.outcome,
      );
    }
    const cmp = (await readCompactedThrough(redis, space, this.apiId)) ?? -1;
    const increments = expand(counter, { now: this.now, retention, cmp });
    const [result] = await applyApiBatches(redis, space, [
      {
        apiId: this.apiId,
        increments,
        cas: { offsetField: 'test/0', expectedOff: this.offset, newOff: this.offset + 1, expectedCmp: cmp },
      },
    ]);
    expect(result).toEqual({ status: 'ok' });
    this.offset++;
  }
}

/** Every stored counter of a bucket, decoded, as a comparable value. */
function plain(c: DecodedCounts | undefined) {
  if (!c) return undefined;
  const sorted = (m: Map<string, number[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    total: c.total,
    byKey: sorted(c.byKey),
    byIdentity: sorted(c.byIdentity),
    byTagSet: sorted(c.byTagSet),
    full: sorted(c.full),
  };
}

function addInto(into: DecodedCounts, from: DecodedCounts): void {
  from.total.forEach((n, o) => (into.total[o]! += n));
  for (const field of ['byKey', 'byIdentity', 'byTagSet', 'full'] as const) {
    for (const [k, counts] of from[field]) {
      const cur = into[field].get(k) ?? new Array<number>(OUTCOME_COUNT).fill(0);
      counts.forEach((n, o) => (cur[o]! += n));
      into[field].set(k, cur);
    }
  }
}

/** Sum of the hour buckets of each day and month (what the rollups must hold). */
async function expectedRollups(apiId: string, throughHour: number) {
  const hours = await dumpApiCounts(redis, space, apiId, 'h');
  const empty = (): DecodedCounts => ({
    total: new Array<number>(OUTCOME_COUNT).fill(0),
    byKey: new Map(),
    byIdentity: new Map(),
    byTagSet: new Map(),
    full: new Map(),
  });
  const days = new Map<number, DecodedCounts>();
  const months = new Map<number, DecodedCounts>();
  for (const [h, counts] of hours.perBucket) {
    if (h > throughHour) continue;
    for (const [map, index] of [
      [days, dayOfHour(h)],
      [months, monthOfHour(h)],
    ] as const) {
      if (!map.has(index)) map.set(index, empty());
      addInto(map.get(index)!, counts);
    }
  }
  return { days, months };
}

async function expectRollupsMatchHours(apiId: string, throughHour: number): Promise<void> {
  const want = await expectedRollups(apiId, throughHour);
  const days = await dumpApiCounts(redis, space, apiId, 'd');
  const months = await dumpApiCounts(redis, space, apiId, 'm');
  expect(new Set(days.perBucket.keys())).toEqual(new Set(want.days.keys()));
  expect(new Set(months.perBucket.keys())).toEqual(new Set(want.months.keys()));
  for (const [d, counts] of want.days) expect(plain(days.perBucket.get(d))).toEqual(plain(counts));
  for (const [m, counts] of want.months) expect(plain(months.perBucket.get(m))).toEqual(plain(counts));
}

const compact = (apiId: string, closedBound: number, now: number) =>
  compactApi(redis, space, apiId, { closedBound, retention, now });

describe('compactNextHour', () => {
  const now = Date.parse('2028-03-02T12:30:00Z');
  // Hours across a day, a month and the leap day: Feb 28 23:00 .. Mar 1 01:00 2028.
  const hours = [
    H('2028-02-28T22'),
    H('2028-02-28T23'),
    H('2028-02-29T00'),
    H('2028-02-29T23'),
    H('2028-03-01T00'),
    H('2028-03-01T05'),
  ];
  const events = (n: number): TestEvent[] =>
    hours.flatMap((hour, i) =>
      Array.from({ length: n + i }, (_, j) => ({
        hour,
        key: `key_${j % 3}`,
        tags: j % 2 ? ['b', 'a'] : [],
        ...(j % 4 === 0 ? { identity: `id_${j % 5}` } : {}),
        outcome: j % OUTCOME_COUNT,
      })),
    );

  it('merges every cube of every closed hour into its day and month, exactly, then is idempotent', async () => {
    const api = 'api_basic';
    const ingest = new Ingest(api, now);
    await ingest.write(events(5));
    const bound = H('2028-03-01T00');

    const first = await compact(api, bound, now);
    expect(first).toMatchObject({ hoursCompacted: 5, compactedThrough: bound, done: true });
    await expectRollupsMatchHours(api, bound);
    const dump = async () => [
      plain((await dumpApiCounts(redis, space, api, 'd')).sum),
      plain((await dumpApiCounts(redis, space, api, 'm')).sum),
    ];
    const before = await dump();

    // Twice: nothing merges again.
    expect(await compact(api, bound, now)).toMatchObject({ hoursCompacted: 0, compactedThrough: bound });
    expect(await dump()).toEqual(before);

    // The 05:00 hour is past the bound: not compacted; month of March holds only 00:00.
    const march = (await dumpApiCounts(redis, space, api, 'm', [monthOfHour(bound)])).sum;
    expect(march.total.reduce((a, b) => a + b, 0)).toBe(5 + 4);
    expect(await redis.zrange(apiKeys(space, api).bucketIndex('d'), 0, -1)).toEqual(
      [dayOfHour(hours[0]!), dayOfHour(hours[2]!), dayOfHour(hours[4]!)].map(String),
    );
  });

  it('carries sealed hours, a seal in progress and late deltas beside them into the rollups, exactly', async () => {
    const api = 'api_sealed_hours';
    const keys = apiKeys(space, api);
    const ingest = new Ingest(api, now);
    await ingest.write(events(20));
    const options = { now, retention };
    // Closed hours are sealed before compaction (the compactor's order): sections without expiry,
    // since the hour is not compacted yet.
    await sealBucket(redis, space, api, 'h', hours[0]!, options);
    await sealBucket(redis, space, api, 'h', hours[1]!, options);
    expect(await redis.exists(keys.section('h', hours[0]!, 'f'))).toBe(1);
    expect(await redis.pttl(keys.section('h', hours[0]!, 'f'))).toBe(-1);
    // A seal begun and left in progress, and late events beside sections and sealing hashes.
    const begin = await beginSeal(redis, { keys, res: 'h', index: hours[2]! });
    expect(begin.kind).toBe('seal');
    await ingest.write(events(3).filter((e) => e.hour === hours[1] || e.hour === hours[2]));
    const hoursBefore = plain((await dumpApiCounts(redis, space, api, 'h')).sum);

    const bound = H('2028-03-01T00');
    expect(await compact(api, bound, now)).toMatchObject({ hoursCompacted: 5, compactedThrough: bound });
    await expectRollupsMatchHours(api, bound);
    // Now compacted, the hour's sections expire with it.
    expect(await redis.pttl(keys.section('h', hours[0]!, 'f'))).toBeGreaterThan(0);

    // The seal in progress finishes after the compaction: the hours hold what they held, the rollups too.
    const rollups = async () => [
      plain((await dumpApiCounts(redis, space, api, 'd')).sum),
      plain((await dumpApiCounts(redis, space, api, 'm')).sum),
    ];
    const before = await rollups();
    expect(await sealBucket(redis, space, api, 'h', hours[2]!, options)).not.toBeNull();
    expect(await redis.exists(keys.sealingParts('h', hours[2]!))).toBe(0);
    expect(plain((await dumpApiCounts(redis, space, api, 'h')).sum)).toEqual(hoursBefore);
    expect(await rollups()).toEqual(before);
  });

  it('keeps the sections of an hour sealed past its retention until compaction carries them', async () => {
    const api = 'api_sealed_old';
    const keys = apiKeys(space, api);
    await new Ingest(api, now).write(events(20));
    // Hour retention of one day: at `late` the leap-day hours are past it, not compacted yet.
    const short: Retention = { ...retention, hourMs: DAY_MS };
    const late = Date.parse('2028-03-05T00:00:00Z');
    await sealBucket(redis, space, api, 'h', hours[0]!, { now: late, retention: short });
    expect(await redis.exists(keys.section('h', hours[0]!, 'f'))).toBe(1);
    expect(await redis.pttl(keys.section('h', hours[0]!, 'f'))).toBe(-1);
    const want = await expectedRollups(api, H('2028-03-01T00'));

    await compactApi(redis, space, api, { closedBound: H('2028-03-01T00'), retention: short, now: late });
    const days = await dumpApiCounts(redis, space, api, 'd');
    for (const [d, counts] of want.days) expect(plain(days.perBucket.get(d))).toEqual(plain(counts));
    // Carried, the hour's sections expire with it: at once here (the test's clock is years ahead of
    // Redis's, so Redis still holds them until that instant comes).
    expect(await redis.call('PEXPIRETIME', keys.section('h', hours[0]!, 'f'))).toBe(
      expiresAt('h', hours[0]!, short),
    );
    expect(expiresAt('h', hours[0]!, short)).toBeLessThan(late);
  });

  it('sets expiry of every rollup key to bucket end + retention', async () => {
    const api = 'api_basic';
    const keys = apiKeys(space, api);
    const d = dayOfHour(hours[2]!);
    const m = monthOfHour(hours[2]!);
    const parts = await redis.smembers(keys.parts('d', d));
    expect(parts.length).toBeGreaterThan(3);
    for (const suffix of [...parts.map((s) => keys.cube('d', d, s)), keys.parts('d', d)]) {
      expect(await redis.pexpiretime(suffix)).toBe((d + 1) * DAY_MS + retention.dayMs);
    }
    for (const suffix of (await redis.smembers(keys.parts('m', m))).map((s) => keys.cube('m', m, s))) {
      expect(await redis.pexpiretime(suffix)).toBe(monthStart(m + 1) + retention.monthMs);
    }
  });

  it('a late event for an hour <= cmp lands in the rollups through the ingest path', async () => {
    const api = 'api_late';
    const ingest = new Ingest(api, now);
    await ingest.write(events(3));
    const bound = H('2028-03-01T05');
    await compact(api, bound, now);
    // Late events for compacted hours, and for a new hour before cmp that had no data.
    await ingest.write([
      { hour: hours[0]!, key: 'key_late', outcome: 2 },
      { hour: hours[3]!, key: 'key_0', tags: ['z'], identity: 'late', outcome: 8 },
      { hour: H('2028-02-27T03'), key: 'key_new_hour', outcome: 1 },
    ]);
    await expectRollupsMatchHours(api, bound);
    // And compacting again adds nothing.
    expect(await compact(api, bound, now)).toMatchObject({ hoursCompacted: 0 });
    await expectRollupsMatchHours(api, bound);
  });

  it('absent cmp starts at the first hour; no data moves cmp to the bound; cmp never moves back', async () => {
    const api = 'api_empty';
    expect(await compact(api, 1000, now)).toMatchObject({
      hoursCompacted: 0,
      compactedThrough: 1000,
      done: true,
    });
    expect(await compact(api, 900, now)).toMatchObject({ compactedThrough: 1000 });
    expect(await readCompactedThrough(redis, space, api)).toBe(1000);

    const api2 = 'api_steps';
    const ingest = new Ingest(api2, now);
    await ingest.write(events(1));
    const step = await compactApi(redis, space, api2, {
      closedBound: H('2028-03-02T00'),
      retention,
      now,
      maxHours: 2,
    });
    expect(step).toMatchObject({ hoursCompacted: 2, compactedThrough: hours[1], done: false });
    const [status] = await compactionStatus(redis, space, [api2], H('2028-03-02T00'));
    expect(status).toEqual({ apiId: api2, compactedThrough: hours[1], waitingHours: 4 });
    const rest = await compact(api2, H('2028-03-02T00'), now);
    expect(rest).toMatchObject({ hoursCompacted: 4, compactedThrough: H('2028-03-02T00') });
    await expectRollupsMatchHours(api2, H('2028-03-02T00'));
  });

  it('concurrent compactors never double an hour', async () => {
    const api = 'api_concurrent';
    const ingest = new Ingest(api, now);
    const many = Array.from({ length: 60 }, (_, n) => H('2028-02-20T00') + n * 4);
    await ingest.write(many.flatMap((hour) => [{ hour, key: `k${hour % 7}`, outcome: hour % 9 }]));
    const clients = Array.from({ length: 4 }, () => connectTarget(t.redis));
    try {
      const results = await Promise.all(
        clients.map((c) => compactApi(c, space, api, { closedBound: H('2028-03-02T00'), retention, now })),
      );
      expect(results.reduce((sum, r) => sum + r.hoursCompacted, 0)).toBe(60);
    } finally {
      clients.forEach((c) => c.disconnect());
    }
    await expectRollupsMatchHours(api, H('2028-03-02T00'));
  });

  it('skips rollups past their retention and trims index entries past retention', async () => {
    const api = 'api_old';
    // A clock 40 days on: hour buckets written "then" are still there (we write them with an older clock).
    const writeNow = Date.parse('2028-01-10T00:00:00Z');
    const ingest = new Ingest(api, writeNow);
    await ingest.write([
      { hour: H('2028-01-05T10'), key: 'k', outcome: 0 },
      { hour: H('2028-01-09T10'), key: 'k', outcome: 0 },
    ]);
    // Day retention 2 days, month retention long: at Jan 8, the day of Jan 5 is gone, its month is kept.
    const short = { hourMs: 35 * DAY_MS, dayMs: 2 * DAY_MS, monthMs: 400 * DAY_MS };
    const at = Date.parse('2028-01-08T00:00:00Z');
    const r = await compactApi(redis, space, api, {
      closedBound: H('2028-01-09T23'),
      retention: short,
      now: at,
    });
    expect(r.hoursCompacted).toBe(2);
    const keys = apiKeys(space, api);
    expect(await redis.exists(keys.cube('d', dayOfHour(H('2028-01-05T10')), 't'))).toBe(0);
    expect(await redis.hget(keys.cube('d', dayOfHour(H('2028-01-09T10')), 't'), '0')).toBe('1');
    expect(await redis.hget(keys.cube('m', monthOfHour(H('2028-01-05T10')), 't'), '0')).toBe('2');
    expect(await redis.zrange(keys.bucketIndex('d'), 0, -1)).toEqual([String(dayOfHour(H('2028-01-09T10')))]);

    // Later, retention trims the index entries whose buckets have expired.
    const later = Date.parse('2028-02-20T00:00:00Z');
    expect(await trimIndexes(redis, space, api, short, later)).toEqual([2, 1, 0]);
    expect(await redis.zcard(keys.bucketIndex('h'))).toBe(0);
  });
});

describe('compactNextHour calendar (Lua month arithmetic against libs/core)', () => {
  it('puts the first and last hour of every month 1970..2199 in the right month with the right expiry', async () => {
    const api = 'api_calendar';
    const keys = apiKeys(space, api);
    const months = Array.from({ length: 230 * 12 }, (_, m) => m);
    // Write counters directly (the layout the ingest script writes): t cube, parts, idx:h.
    const write = redis.pipeline();
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
    const r = await compactApi(redis, space, api, {
      closedBound: hoursOfMonth(months.at(-1)!)[1],
      retention: long,
      now: 0,
    });
    expect(r.hoursCompacted).toBe(months.length * 2);
    const check = redis.pipeline();
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
    expect(await redis.zcard(keys.bucketIndex('m'))).toBe(months.length);
    expect(await redis.zcard(keys.bucketIndex('d'))).toBe(months.length * 2);
  });
});

describe('a reader holding compaction', () => {
  it('makes compactApi wait until the hold is gone, then compact as usual', async () => {
    const api = 'api_held';
    const now = Date.parse('2028-03-02T12:30:00Z');
    await new Ingest(api, now).write([{ hour: H('2028-03-01T05'), key: 'k', outcome: 0 }]);
    // Longer than the shortest hold, for a loaded machine; none compacted yet: no point to plan with.
    expect(await holdCompaction(redis, space, api, 1_500)).toBeNull();
    const compacting = compact(api, H('2028-03-01T10'), now);
    // Held: the point has not moved while the hold lasts.
    expect(await redis.exists(apiKeys(space, api).compactionHold)).toBe(1);
    expect(await readCompactedThrough(redis, space, api)).toBeNull();
    expect(await compacting).toMatchObject({
      hoursCompacted: 1,
      compactedThrough: H('2028-03-01T10'),
      done: true,
    });
  });
  it('returns the point it holds, and holds for the time asked, within its bounds', async () => {
    const api = 'api_held_point';
    const now = Date.parse('2028-03-02T12:30:00Z');
    await new Ingest(api, now).write([{ hour: H('2028-03-01T05'), key: 'k', outcome: 0 }]);
    await compact(api, H('2028-03-01T07'), now);
    const hold = apiKeys(space, api).compactionHold;
    expect(await holdCompaction(redis, space, api, 2_000)).toBe(H('2028-03-01T07'));
    expect(await redis.pttl(hold)).toBeGreaterThan(1_000);
    await holdCompaction(redis, space, api, 1);
    expect(await redis.pttl(hold)).toBeLessThanOrEqual(COMPACTION_HOLD_MS);
    expect(await redis.pttl(hold)).toBeGreaterThan(0);
    await holdCompaction(redis, space, api, 3_600_000);
    expect(await redis.pttl(hold)).toBeLessThanOrEqual(COMPACTION_HOLD_MAX_MS);
    expect(await redis.pttl(hold)).toBeGreaterThan(COMPACTION_HOLD_MAX_MS - 1_000);
    await releaseCompaction(redis, space, api);
    expect(await redis.exists(hold)).toBe(0);
  });
});

describe('compactNextHour script contract', () => {
  it('answers held while a reader holds compaction, staged while chunks wait, then hour (h, fields) and done (cmp)', async () => {
    const api = 'api_contract';
    const keys = apiKeys(space, api);
    await redis.hincrby(keys.cube('h', 100, 't'), '3', 7);
    await redis.sadd(keys.parts('h', 100), 't');
    await redis.zadd(keys.bucketIndex('h'), 100, 100);
    const forever = 300 * 366 * DAY_MS;
    const keep = { hourMs: forever, dayMs: forever, monthMs: forever };
    const next = (closedBound: number) =>
      compactNextHour(redis, space, api, { closedBound, now: 0, retention: keep });
    // A staged chunk (applyStagedChunk's layout) of hour 100: applied before the hour is compacted.
    await redis.rpush(keys.stage, '1 h 100 0 1 t 1 3 5 0');
    expect(await next(200)).toEqual({ kind: 'staged' });
    expect(await drainStaged(redis, space, [api])).toBe(1);
    expect(await redis.hget(keys.cube('h', 100, 't'), '3')).toBe('12');
    await holdCompaction(redis, space, api);
    expect(await redis.pttl(keys.compactionHold)).toBeGreaterThan(0);
    expect(await next(200)).toEqual({ kind: 'held' });
    expect(await redis.exists(keys.compactedThrough)).toBe(0);
    await redis.del(keys.compactionHold);
    expect(await next(200)).toEqual({ kind: 'hour', hour: 100, fields: 1 });
    expect(await next(200)).toEqual({ kind: 'done', cmp: 200 });
    expect(await next(150)).toEqual({ kind: 'done', cmp: 200 });
    // 7 written before, 5 staged and applied before the hour was compacted.
    expect(await redis.hget(keys.cube('d', 4, 't'), '3')).toBe('12');
    expect(await redis.hget(keys.cube('m', 0, 't'), '3')).toBe('12');
    expect(await redis.pexpiretime(keys.cube('d', 4, 't'))).toBe(5 * DAY_MS + forever);
    // The merged hour gets its expiry only now (ingest wrote it without one).
    expect(await redis.pexpiretime(keys.cube('h', 100, 't'))).toBe(101 * 3_600_000 + forever);
    expect(await redis.pexpiretime(keys.parts('h', 100))).toBe(101 * 3_600_000 + forever);
  });
});

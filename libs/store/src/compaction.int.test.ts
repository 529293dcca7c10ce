// compactNextHour / trimIndexes against a real Redis, with hours written through the ingest
// engineer's store write path (assignCodes + expand + applyApiBatch, CAS on cmp included).
import { describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import { DAY_MS, dayOfHour, expiresAt, hourOf, monthOfHour, monthStart, type Retention } from '@va/core';
import { type DecodedCounts, dumpApiCounts } from './testing';
import { compactApi, compactionStatus, readCompactedThrough } from './compaction';
import { apiKeys } from './keys';
import { sealBucket } from './seal';
import { trimIndexes } from './scripts/compaction-scripts';
import { beginSeal } from './scripts/seal-scripts';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION, type TestEvent } from './testing/ingest-events';

const retention = TEST_RETENTION;
const H = (iso: string) => hourOf(Date.parse(`${iso}:00:00Z`));

const db = fileRedis('store-compaction');
const { space } = db;
const writer = (apiId: string, now: number) => new Ingest(db.redis, space, retention, apiId, now);

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
  const hours = await dumpApiCounts(db.redis, space, apiId, 'h');
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
  const days = await dumpApiCounts(db.redis, space, apiId, 'd');
  const months = await dumpApiCounts(db.redis, space, apiId, 'm');
  expect(new Set(days.perBucket.keys())).toEqual(new Set(want.days.keys()));
  expect(new Set(months.perBucket.keys())).toEqual(new Set(want.months.keys()));
  for (const [d, counts] of want.days) expect(plain(days.perBucket.get(d))).toEqual(plain(counts));
  for (const [m, counts] of want.months) expect(plain(months.perBucket.get(m))).toEqual(plain(counts));
}

const compact = (apiId: string, closedBound: number, now: number) =>
  compactApi(db.redis, space, apiId, { closedBound, retention, now });

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
    const ingest = writer(api, now);
    await ingest.write(events(5));
    const bound = H('2028-03-01T00');

    const first = await compact(api, bound, now);
    expect(first).toMatchObject({ hoursCompacted: 5, compactedThrough: bound, done: true });
    await expectRollupsMatchHours(api, bound);
    const dump = async () => [
      plain((await dumpApiCounts(db.redis, space, api, 'd')).sum),
      plain((await dumpApiCounts(db.redis, space, api, 'm')).sum),
    ];
    const before = await dump();

    // Twice: nothing merges again.
    expect(await compact(api, bound, now)).toMatchObject({ hoursCompacted: 0, compactedThrough: bound });
    expect(await dump()).toEqual(before);

    // The 05:00 hour is past the bound: not compacted; month of March holds only 00:00.
    const march = (await dumpApiCounts(db.redis, space, api, 'm', [monthOfHour(bound)])).sum;
    expect(march.total.reduce((a, b) => a + b, 0)).toBe(5 + 4);
    expect(await db.redis.zrange(apiKeys(space, api).bucketIndex('d'), 0, -1)).toEqual(
      [dayOfHour(hours[0]!), dayOfHour(hours[2]!), dayOfHour(hours[4]!)].map(String),
    );
  });

  it('carries sealed hours, a seal in progress and late deltas beside them into the rollups, exactly', async () => {
    const api = 'api_sealed_hours';
    const keys = apiKeys(space, api);
    const ingest = writer(api, now);
    await ingest.write(events(20));
    const options = { now, retention };
    // Closed hours are sealed before compaction (the compactor's order): sections without expiry,
    // since the hour is not compacted yet.
    await sealBucket(db.redis, space, api, 'h', hours[0]!, options);
    await sealBucket(db.redis, space, api, 'h', hours[1]!, options);
    expect(await db.redis.exists(keys.section('h', hours[0]!, 'f'))).toBe(1);
    expect(await db.redis.pttl(keys.section('h', hours[0]!, 'f'))).toBe(-1);
    // A seal begun and left in progress, and late events beside sections and sealing hashes.
    const begin = await beginSeal(db.redis, { keys, res: 'h', index: hours[2]! });
    expect(begin.kind).toBe('seal');
    await ingest.write(events(3).filter((e) => e.hour === hours[1] || e.hour === hours[2]));
    const hoursBefore = plain((await dumpApiCounts(db.redis, space, api, 'h')).sum);

    const bound = H('2028-03-01T00');
    expect(await compact(api, bound, now)).toMatchObject({ hoursCompacted: 5, compactedThrough: bound });
    await expectRollupsMatchHours(api, bound);
    // Now compacted, the hour's sections expire with it.
    expect(await db.redis.pttl(keys.section('h', hours[0]!, 'f'))).toBeGreaterThan(0);

    // The seal in progress finishes after the compaction: the hours hold what they held, the rollups too.
    const rollups = async () => [
      plain((await dumpApiCounts(db.redis, space, api, 'd')).sum),
      plain((await dumpApiCounts(db.redis, space, api, 'm')).sum),
    ];
    const before = await rollups();
    expect(await sealBucket(db.redis, space, api, 'h', hours[2]!, options)).not.toBeNull();
    expect(await db.redis.exists(keys.sealingParts('h', hours[2]!))).toBe(0);
    expect(plain((await dumpApiCounts(db.redis, space, api, 'h')).sum)).toEqual(hoursBefore);
    expect(await rollups()).toEqual(before);
  });

  it('keeps the sections of an hour sealed past its retention until compaction carries them', async () => {
    const api = 'api_sealed_old';
    const keys = apiKeys(space, api);
    await writer(api, now).write(events(20));
    // Hour retention of one day: at `late` the leap-day hours are past it, not compacted yet.
    const short: Retention = { ...retention, hourMs: DAY_MS };
    const late = Date.parse('2028-03-05T00:00:00Z');
    await sealBucket(db.redis, space, api, 'h', hours[0]!, { now: late, retention: short });
    expect(await db.redis.exists(keys.section('h', hours[0]!, 'f'))).toBe(1);
    expect(await db.redis.pttl(keys.section('h', hours[0]!, 'f'))).toBe(-1);
    const want = await expectedRollups(api, H('2028-03-01T00'));

    await compactApi(db.redis, space, api, { closedBound: H('2028-03-01T00'), retention: short, now: late });
    const days = await dumpApiCounts(db.redis, space, api, 'd');
    for (const [d, counts] of want.days) expect(plain(days.perBucket.get(d))).toEqual(plain(counts));
    // Carried, the hour's sections expire with it: at once here (the test's clock is years ahead of
    // Redis's, so Redis still holds them until that instant comes).
    expect(await db.redis.call('PEXPIRETIME', keys.section('h', hours[0]!, 'f'))).toBe(
      expiresAt('h', hours[0]!, short),
    );
    expect(expiresAt('h', hours[0]!, short)).toBeLessThan(late);
  });

  it('sets expiry of every rollup key to bucket end + retention', async () => {
    const api = 'api_basic';
    const keys = apiKeys(space, api);
    const d = dayOfHour(hours[2]!);
    const m = monthOfHour(hours[2]!);
    const parts = await db.redis.smembers(keys.parts('d', d));
    expect(parts.length).toBeGreaterThan(3);
    for (const suffix of [...parts.map((s) => keys.cube('d', d, s)), keys.parts('d', d)]) {
      expect(await db.redis.pexpiretime(suffix)).toBe((d + 1) * DAY_MS + retention.dayMs);
    }
    for (const suffix of (await db.redis.smembers(keys.parts('m', m))).map((s) => keys.cube('m', m, s))) {
      expect(await db.redis.pexpiretime(suffix)).toBe(monthStart(m + 1) + retention.monthMs);
    }
  });

  it('a late event for an hour <= cmp lands in the rollups through the ingest path', async () => {
    const api = 'api_late';
    const ingest = writer(api, now);
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
    expect(await readCompactedThrough(db.redis, space, api)).toBe(1000);

    const api2 = 'api_steps';
    const ingest = writer(api2, now);
    await ingest.write(events(1));
    const step = await compactApi(db.redis, space, api2, {
      closedBound: H('2028-03-02T00'),
      retention,
      now,
      maxHours: 2,
    });
    expect(step).toMatchObject({ hoursCompacted: 2, compactedThrough: hours[1], done: false });
    const [status] = await compactionStatus(db.redis, space, [api2], H('2028-03-02T00'));
    expect(status).toEqual({ apiId: api2, compactedThrough: hours[1], waitingHours: 4 });
    const rest = await compact(api2, H('2028-03-02T00'), now);
    expect(rest).toMatchObject({ hoursCompacted: 4, compactedThrough: H('2028-03-02T00') });
    await expectRollupsMatchHours(api2, H('2028-03-02T00'));
  });

  it('concurrent compactors never double an hour', async () => {
    const api = 'api_concurrent';
    const ingest = writer(api, now);
    const many = Array.from({ length: 60 }, (_, n) => H('2028-02-20T00') + n * 4);
    await ingest.write(many.flatMap((hour) => [{ hour, key: `k${hour % 7}`, outcome: hour % 9 }]));
    const clients = Array.from({ length: 4 }, () => db.connect());
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
    const ingest = writer(api, writeNow);
    await ingest.write([
      { hour: H('2028-01-05T10'), key: 'k', outcome: 0 },
      { hour: H('2028-01-09T10'), key: 'k', outcome: 0 },
    ]);
    // Day retention 2 days, month retention long: at Jan 8, the day of Jan 5 is gone, its month is kept.
    const short = { hourMs: 35 * DAY_MS, dayMs: 2 * DAY_MS, monthMs: 400 * DAY_MS };
    const at = Date.parse('2028-01-08T00:00:00Z');
    const r = await compactApi(db.redis, space, api, {
      closedBound: H('2028-01-09T23'),
      retention: short,
      now: at,
    });
    expect(r.hoursCompacted).toBe(2);
    const keys = apiKeys(space, api);
    expect(await db.redis.exists(keys.cube('d', dayOfHour(H('2028-01-05T10')), 't'))).toBe(0);
    expect(await db.redis.hget(keys.cube('d', dayOfHour(H('2028-01-09T10')), 't'), '0')).toBe('1');
    expect(await db.redis.hget(keys.cube('m', monthOfHour(H('2028-01-05T10')), 't'), '0')).toBe('2');
    expect(await db.redis.zrange(keys.bucketIndex('d'), 0, -1)).toEqual([
      String(dayOfHour(H('2028-01-09T10'))),
    ]);

    // Later, retention trims the index entries whose buckets have expired.
    const later = Date.parse('2028-02-20T00:00:00Z');
    expect(await trimIndexes(db.redis, space, api, short, later)).toEqual([2, 1, 0]);
    expect(await db.redis.zcard(keys.bucketIndex('h'))).toBe(0);
  });
});

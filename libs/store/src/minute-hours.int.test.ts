// Minutes of a sealed hour read once per version of the hour (read/minute-hours.ts): Asia/Kolkata's days split
// the UTC hours holding 18:30Z by their minute buckets. After a first read keeps an hour's minutes, later reads
// check the hour alone and use the kept texts; a late event into one of those minutes, written as ingest writes
// it (with its hour in the same call, or with the hour staged apart), must be counted all the same.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HOUR_MS,
  dayOfHour,
  firstMinuteKept,
  horizonsAt,
  hourOf,
  planReads,
  type BucketRead,
} from '@va/core';
import { drainStaged } from './apply';
import { compactApi, readCompactedThrough } from './compaction';
import { apiKeys } from './keys';
import type { CubeQuery } from './read';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION, writeStagedEvent } from './testing/ingest-events';
import { sealNow } from './testing/seal';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('minute-hours');
const { space } = db;
const API = 'api_minute_hours';
const retention = { ...TEST_RETENTION, minuteMs: 48 * HOUR_MS };
const now = Date.now();
const nowHour = hourOf(now);
const cmp = nowHour - 2;
let ingest: Ingest;

/** Kolkata by day over the last 40 hours, planned as the query service plans it. */
const reads: BucketRead[] = planReads({
  startHour: nowHour - 40,
  endHour: nowHour,
  granularity: 'day',
  compactedThrough: cmp,
  horizons: horizonsAt(now, retention),
  dataThroughHour: nowHour,
  timeZone: 'Asia/Kolkata',
  firstMinuteKept: Math.ceil(firstMinuteKept(now, retention) / 60) * 60,
}).reads;

const minuteReads = reads.filter((r) => r.res === 'n');
/** The UTC hours the plan splits by minutes. */
const splitHours = [...new Set(minuteReads.map((r) => Math.floor(r.index / 60)))];
/** A sealed split hour, and a minute of it the plan reads. */
const edge = splitHours.find((h) => h <= cmp)!;
const edgeMinute = minuteReads.find((r) => Math.floor(r.index / 60) === edge)!.index;

const totals = cubeQuery({ cube: 't' });
const byKeyAndIdentity = cubeQuery({ cube: 'f', group: { key: true, identity: true, set: false } });

const cells = (q: CubeQuery, cache?: SectionCache): Promise<string[]> =>
  readCellLines(db.redis, space, API, q, reads, cmp, cache);

/** A cache that keeps the split hours' minutes, checked to be used: a hit per split hour on the second read. */
async function warmCache(q: CubeQuery): Promise<SectionCache> {
  const cache = new SectionCache(1 << 24);
  const expected = await cells(q);
  expect(await cells(q, cache)).toEqual(expected);
  const hits = cache.stats().minuteHourHits;
  expect(await cells(q, cache)).toEqual(expected);
  expect(cache.stats().minuteHourHits - hits).toBe(splitHours.filter((h) => h <= cmp).length);
  return cache;
}

beforeAll(async () => {
  ingest = new Ingest(db.redis, space, retention, API, now);
  const events = [];
  for (let h = nowHour - 40; h <= nowHour; h++)
    for (let n = 0; n < 6; n++) {
      const minute = h * 60 + ((n * 23) % 60);
      if (minute * 60_000 > now) continue;
      const identity = n % 3 === 0 ? undefined : `user_${n % 2}`;
      events.push({
        hour: h,
        minute,
        key: `key_${(h + n) % 5}`,
        outcome: n % 2,
        ...(identity && { identity }),
      });
    }
  await ingest.write(events);
  await compactApi(db.redis, space, API, { closedBound: cmp, retention, now });
  await sealApi(db.redis, space, API, cmp, { now, retention });
  expect(await readCompactedThrough(db.redis, space, API)).toBe(cmp);
});

describe("a split hour's minutes read once per version of the hour (read/minute-hours.ts)", () => {
  it('plans sealed hours split by minutes', () => {
    expect(splitHours.length).toBeGreaterThan(0);
    expect(edge).toBeDefined();
    expect(minuteReads.filter((r) => Math.floor(r.index / 60) === edge).length).toBeGreaterThan(1);
  });

  it('answers from the kept minutes as from Redis, totals and by key and identity', async () => {
    for (const q of [totals, byKeyAndIdentity]) await warmCache(q);
  });

  it("keeps a cube's minutes apart from another's (t and f hashes of the same minutes)", async () => {
    const cache = new SectionCache(1 << 24);
    for (let round = 0; round < 2; round++)
      for (const q of [totals, byKeyAndIdentity]) expect(await cells(q, cache)).toEqual(await cells(q));
    expect(cache.stats().minuteHourHits).toBeGreaterThan(0);
  });

  it('counts a late event into a minute of a split hour, before and after the hour is sealed', async () => {
    for (const q of [totals, byKeyAndIdentity]) {
      const cache = await warmCache(q);
      const before = await cells(q);
      // Written with its hour (and the hour's day and month) in one applyApiBatch call: the hour gets a delta.
      await ingest.write([
        { hour: edge, minute: edgeMinute, key: 'key_late', identity: 'user_late', outcome: 0 },
      ]);
      const later = await cells(q);
      expect(later).not.toEqual(before);
      expect(await cells(q, cache)).toEqual(later);
      // The hour sealed: a new version, its minutes read again and kept under it, then used.
      await sealNow(db.redis, { space, apiId: API, res: 'h', index: edge }, { now, retention });
      expect(await db.redis.exists(apiKeys(space, API).parts('h', edge))).toBe(0);
      expect(await cells(q, cache)).toEqual(later);
      const hits = cache.stats().minuteHourHits;
      expect(await cells(q, cache)).toEqual(later);
      expect(cache.stats().minuteHourHits).toBeGreaterThan(hits);
      await sealApi(db.redis, space, API, cmp, { now, retention });
    }
  });

  // Staging keeps the call's prefix (staged-chunks.ts): a minute, written after its hour, is staged with it, and
  // the stage exists until both are applied; the W item checks the stage too, so that no order of the
  // chunks can let a minute change under an unchanged hour.
  it('counts a late event staged with its hour, read before and after the stage is applied', async () => {
    const cache = await warmCache(totals);
    const before = await cells(totals);
    // As applyApiBatch writes it with a bound of one write per call: its day and month in the call, the rest staged.
    await writeStagedEvent(db.redis, space, API, { hour: edge, minute: edgeMinute }, { now, retention });
    // The hour has no delta yet (its writes wait in the stage); the day has the event. The answer shows it now
    // only where the plan reads the edge hour through its day (at some hours of the day it reads the hour itself).
    expect(await db.redis.exists(apiKeys(space, API).parts('h', edge))).toBe(0);
    const staged = await cells(totals);
    if (reads.some((r) => r.res === 'd' && r.index === dayOfHour(edge))) expect(staged).not.toEqual(before);
    expect(await cells(totals, cache)).toEqual(staged);
    await drainStaged(db.redis, space, [API]);
    const later = await cells(totals);
    expect(later).not.toEqual(before);
    expect(await cells(totals, cache)).toEqual(later);
    await sealApi(db.redis, space, API, cmp, { now, retention });
    expect(await cells(totals, cache)).toEqual(later);
    expect(await cells(totals, cache)).toEqual(later);
  });
});

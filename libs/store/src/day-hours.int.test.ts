// A day's hours read as one (rollup-children.ts): a New York query by day reads each UTC day's
// hours 00-04 twice (added to one local day, subtracted from the next). After a first read records
// the compacted ones, later reads check their day alone and sum the cached hour sections; a late
// event into a compacted edge hour, written as ingest writes it (with its day in the same call, or
// with the hour staged apart from its day), must be counted all the same.
import { beforeAll, describe, expect, it } from 'vitest';
import { dayOfHour, horizonsAt, hourOf, monthOfDay, monthOfHour, planReads, type BucketRead } from '@va/core';
import { readCompactedThrough, compactApi } from './compaction';
import { isCluster } from './connection';
import { apiKeys } from './keys';
import { monthDayGroups } from './rollup-children';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { monitoredCommands } from './testing/monitor';
import { Ingest, TEST_RETENTION as retention } from './testing/ingest-events';
import { expectStagedLateEventCounted } from './testing/late-events';
import { sealNow } from './testing/seal';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('day-hours');
const { space } = db;
const API = 'api_day_hours';
const now = Date.now();
const nowHour = hourOf(now);
const cmp = nowHour - 2;
const q = cubeQuery({ cube: 'k', group: { key: true, identity: false, set: false } });
let ingest: Ingest;

/** By day over the last 30 days, planned as the query service plans it. */
const thirtyDays = (timeZone?: string): BucketRead[] =>
  planReads({
    startHour: nowHour - 30 * 24,
    endHour: nowHour,
    granularity: 'day',
    compactedThrough: cmp,
    horizons: horizonsAt(now, retention),
    dataThroughHour: nowHour,
    ...(timeZone !== undefined && { timeZone }),
  }).reads;

/** New York by day over the last 30 days. */
const reads = thirtyDays('America/New_York');

/** A compacted edge hour of a UTC day ten days ago: read added to one local day, subtracted from the next. */
const edge = (dayOfHour(nowHour) - 10) * 24 + 2;

/** The same 30 days in UTC. */
const utcReads = thirtyDays();

const cells = (cache?: SectionCache, plan = reads): Promise<string[]> =>
  readCellLines(db.redis, space, API, q, plan, cmp, cache);

/** Seals every dirty bucket (the hours up to cmp, days, months), as the compactor does. */
const sealAll = () => sealApi(db.redis, space, API, cmp, { now, retention });

/** A cache that has recorded the plan's day hours, checked to be used. */
async function recordedCache(): Promise<SectionCache> {
  const cache = new SectionCache(1 << 24);
  const expected = await cells();
  expect(await cells(cache)).toEqual(expected);
  expect(await cells(cache)).toEqual(expected);
  // The hours are used from their months' records (each grouped month's, one per month), or their day's.
  expect(cache.stats().dayHits).toBeGreaterThanOrEqual(monthDayGroups(reads).size);
  return cache;
}

beforeAll(async () => {
  ingest = new Ingest(db.redis, space, retention, API, now);
  const events = [];
  for (let h = nowHour - 33 * 24; h <= nowHour; h++)
    for (let n = 0; n < 3; n++) events.push({ hour: h, key: `key_${(h + n) % 7}`, outcome: n % 2 });
  await ingest.write(events);
  await compactApi(db.redis, space, API, { closedBound: cmp, retention, now });
  await sealAll();
  expect(await readCompactedThrough(db.redis, space, API)).toBe(cmp);
});

describe("a day's hours read as one (zone edge hours)", () => {
  it('plans edge hours twice, most of them compacted', () => {
    const hours = reads.filter((r) => r.res === 'h' && r.index <= cmp);
    expect(hours.length).toBeGreaterThan(250);
    expect(hours.filter((r) => r.index === edge)).toHaveLength(2);
  });

  it('counts a late event into a compacted edge hour, before and after its hour and day are sealed', async () => {
    const cache = await recordedCache();
    const before = await cells();
    // Written with its day and month in one applyApiBatch call: the day gets a delta.
    await ingest.write([{ hour: edge, key: 'key_late', outcome: 0 }]);
    const later = await cells();
    expect(later).not.toEqual(before);
    expect(await cells(cache)).toEqual(later);
    // The hour sealed (a new version), its day still with a delta.
    await sealNow(db.redis, { space, apiId: API, res: 'h', index: edge }, { now, retention });
    expect(await cells(cache)).toEqual(later);
    // The day sealed too: a new version, recorded again, then used again.
    await sealAll();
    const hits = cache.stats().dayHits;
    expect(await cells(cache)).toEqual(later);
    expect(await cells(cache)).toEqual(later);
    expect(cache.stats().dayHits).toBeGreaterThan(hits);
  });

  it("counts a late event into an edge hour of a grouped month's day, the month sealed in between", async () => {
    expect(monthDayGroups(reads).has(monthOfHour(edge))).toBe(true);
    const cache = await recordedCache();
    const before = await cells();
    await ingest.write([{ hour: edge + 1, key: 'key_month', outcome: 1 }]);
    const later = await cells();
    expect(later).not.toEqual(before);
    expect(await cells(cache)).toEqual(later);
    // The month sealed alone: a new version, no delta; its day and hour keep theirs.
    await sealApi(db.redis, space, API, cmp, { now, retention, only: 'm' });
    expect(await db.redis.exists(apiKeys(space, API).parts('d', dayOfHour(edge)))).toBe(1);
    expect(await cells(cache)).toEqual(later);
    await ingest.write([{ hour: edge + 1, key: 'key_month', outcome: 1 }]);
    const last = await cells();
    expect(last).not.toEqual(later);
    expect(await cells(cache)).toEqual(last);
    await sealAll();
    expect(await cells(cache)).toEqual(last);
    expect(await cells(cache)).toEqual(last);
    // An uncompacted hour of the month, written alone: never recorded under the month.
    expect(monthDayGroups(reads).has(monthOfHour(cmp + 1))).toBe(true);
    // The plan's uncompacted hours sealed (no delta), so that only the compaction rule keeps them out.
    for (const index of new Set(reads.filter((r) => r.res === 'h' && r.index > cmp).map((r) => r.index))) {
      await sealNow(db.redis, { space, apiId: API, res: 'h', index }, { now, retention });
      expect(await db.redis.exists(apiKeys(space, API).parts('h', index))).toBe(0);
    }
    expect(await cells(cache)).toEqual(last);
    expect(await cells(cache)).toEqual(last);
    await ingest.write([{ hour: cmp + 1, key: 'key_open', outcome: 0 }]);
    const open = await cells();
    expect(open).not.toEqual(last);
    expect(await cells(cache)).toEqual(open);
  });

  it('checks a warm month of a zone read with one item, as a UTC read does', async () => {
    if (isCluster(db.redis)) return; // INFO answers for one node
    const cache = await recordedCache();
    for (const plan of [reads, utcReads]) await cells(cache, plan);
    const zone = await monitoredCommands(db.redis, space.prefix, () => cells(cache));
    const utc = await monitoredCommands(db.redis, space.prefix, () => cells(cache, utcReads));
    console.log(`warm 30 days by day: New York ${zone} commands, UTC ${utc}`);
    expect(zone).toBeLessThanOrEqual(utc + 8);
  });

  it('keeps a record per set of children: two reads of one month with different hours alternate without reading hours again', async () => {
    if (isCluster(db.redis)) return; // INFO answers for one node
    // The query service reads a zone's "this month" by day twice: first without granularity from its start
    // (04:00 UTC in New York: that day's hours 04-23 beside the later days), then by local day (each day's
    // edge hours 00-04). Both group their hours under the same month, with neither set inside the other:
    // one record per rollup was replaced by the other read's on every request, and every hour read again.
    let day = dayOfHour(nowHour) - 25;
    while (monthOfDay(day) !== monthOfDay(day + 4)) day++; // at least three grouped days follow it in its month
    const whole = planReads({
      startHour: day * 24 + 4,
      endHour: nowHour,
      compactedThrough: cmp,
      horizons: horizonsAt(now, retention),
      dataThroughHour: nowHour,
    }).reads;
    const cache = await recordedCache();
    for (let round = 0; round < 2; round++) for (const plan of [whole, reads]) await cells(cache, plan);
    const both = await monitoredCommands(db.redis, space.prefix, async () => {
      await cells(cache, whole);
      await cells(cache, reads);
    });
    const utc = await monitoredCommands(db.redis, space.prefix, () => cells(cache, utcReads));
    console.log(
      `warm, alternating: a whole-range read and a New York read ${both} commands, one UTC read ${utc}`,
    );
    expect(both).toBeLessThanOrEqual(2 * (utc + 8));
    expect(await cells(cache, whole)).toEqual(await cells(undefined, whole));
  });

  it('counts a late event whose hour was staged apart from its day, sealed in between', async () => {
    const cache = await recordedCache();
    await expectStagedLateEventCounted({
      redis: db.redis,
      space,
      apiId: API,
      hour: edge,
      cmp,
      now,
      retention,
      cells,
      cache,
    });
  });

  it('never records an hour after the compaction point (written without its day)', async () => {
    // Another API: a UTC day whose hours 00-05 are compacted into it, the others sealed but not compacted.
    const api = 'api_open_hours';
    const day = dayOfHour(nowHour) - 2;
    const open = new Ingest(db.redis, space, retention, api, now);
    const events = Array.from({ length: 24 }, (_, h) => ({ hour: day * 24 + h, key: 'key_0', outcome: 0 }));
    await open.write(events);
    const through = day * 24 + 5;
    await compactApi(db.redis, space, api, { closedBound: through, retention, now });
    await sealApi(db.redis, space, api, cmp, { now, retention });
    const hours: BucketRead[] = Array.from({ length: 12 }, (_, n) => ({
      res: 'h',
      index: through + 1 + n,
      slice: (through + 1 + n) * 3_600_000,
    }));
    const cellsOf = (cache?: SectionCache) => readCellLines(db.redis, space, api, q, hours, through, cache);
    const cache = new SectionCache(1 << 24);
    expect(await cellsOf(cache)).toEqual(await cellsOf());
    expect(await cellsOf(cache)).toEqual(await cellsOf());
    // A live event into one of those hours: written to the hour alone.
    await open.write([{ hour: through + 4, key: 'key_0', outcome: 0 }]);
    expect(await db.redis.exists(apiKeys(space, api).parts('d', day))).toBe(0);
    const later = await cellsOf();
    expect(await cellsOf(cache)).toEqual(later);
    expect(cache.stats().dayHits).toBe(0);
  });
});

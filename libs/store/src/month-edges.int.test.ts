// A billing zone's edges read with their UTC month (rollup-children.ts monthEdgeGroups): an Asia/Kolkata query
// by day reads each local midnight's edge twice (subtracted from one local day, added to the next) beside the
// UTC days. After a first read records the edges of compacted days under their month, later reads check the
// month alone and sum the cached edge sections. A late event into a recorded edge, written as ingest writes it
// (with its day and month in the same call, or with the edge staged apart from them), must be counted all the
// same; an edge of a day not compacted through (written without its month) is never recorded.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DAY_MS,
  dayOfHour,
  EdgeFinder,
  HOUR_MS,
  horizonsAt,
  hourOf,
  isEdgeResolution,
  lastHourOf,
  monthOfHour,
  planReads,
  type BucketRead,
  type EdgeResolution,
} from '@va/core';
import { compactApi, readCompactedThrough } from './compaction';
import { isCluster } from './connection';
import { apiKeys } from './keys';
import { monthEdgeGroups } from './rollup-children';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION as retention, type TestEvent } from './testing/ingest-events';
import { expectStagedLateEventCounted } from './testing/late-events';
import { monitoredCommands } from './testing/monitor';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('month-edges');
const { space } = db;
const API = 'api_month_edges';
const ZONE = 'Asia/Kolkata';
const now = Date.now();
const nowHour = hourOf(now);
const cmp = nowHour - 2;
const q = cubeQuery({ cube: 'k', group: { key: true, identity: false, set: false } });
const finder = new EdgeFinder(ZONE, 1);
let ingest: Ingest;

/** An event at `time`, counted in the edges that hold it, as the worker counts it. */
const at = (time: number, key: string, outcome: number): TestEvent => ({
  hour: hourOf(time),
  key,
  outcome,
  edges: finder.at(time).map(({ res, index }) => ({ res, index })),
});

/** By day over the last 30 days, in the zone or in UTC, planned as the query service plans it. */
const thirtyDays = (zoned: boolean): BucketRead[] =>
  planReads({
    startHour: nowHour - 30 * 24,
    endHour: nowHour,
    granularity: 'day',
    compactedThrough: cmp,
    horizons: horizonsAt(now, retention),
    dataThroughHour: nowHour,
    ...(zoned && { timeZone: ZONE, billingZone: { n: 1, since: 0, firstMonthEdgeDay: 0 } }),
  }).reads;

const reads = thirtyDays(true);
const utcReads = thirtyDays(false);

/** An edge of a compacted UTC day ten days ago, in a month whose days are read as one. */
const edge = reads.find(
  (r) =>
    isEdgeResolution(r.res) &&
    lastHourOf(r.res, r.index) <= cmp &&
    dayOfHour(lastHourOf(r.res, r.index)) === dayOfHour(nowHour) - 10,
)!;
/** An instant inside that edge's window (Kolkata's edge is the tail of the UTC day from 18:30). */
const inEdge = (dayOfHour(lastHourOf(edge.res, edge.index)) * 24 + 20) * HOUR_MS + 5 * 60_000;

const cells = (cache?: SectionCache, plan = reads): Promise<string[]> =>
  readCellLines(db.redis, space, API, q, plan, cmp, cache);

const sealAll = () => sealApi(db.redis, space, API, cmp, { now, retention });

/** A cache that has recorded the plan's edges under their months, checked to be used. */
async function recordedCache(): Promise<SectionCache> {
  const cache = new SectionCache(1 << 24);
  const expected = await cells();
  expect(await cells(cache)).toEqual(expected);
  const hits = cache.stats().monthHits;
  expect(await cells(cache)).toEqual(expected);
  expect(cache.stats().monthHits).toBeGreaterThan(hits);
  return cache;
}

beforeAll(async () => {
  ingest = new Ingest(db.redis, space, retention, API, now);
  const events: TestEvent[] = [];
  // Three events an hour, at minutes 10, 35 and 50: Kolkata's midnight (18:30 UTC) splits its hour.
  for (let h = nowHour - 33 * 24; h <= nowHour; h++)
    for (const [n, minute] of [10, 35, 50].entries())
      if (h * HOUR_MS + minute * 60_000 < now)
        events.push(at(h * HOUR_MS + minute * 60_000, `key_${(h + n) % 7}`, n % 2));
  await ingest.write(events);
  await compactApi(db.redis, space, API, { closedBound: cmp, retention, now });
  await sealAll();
  expect(await readCompactedThrough(db.redis, space, API)).toBe(cmp);
});

describe("a billing zone's edges read with their month", () => {
  it('groups the edges of compacted days under their grouped months, read twice each', () => {
    const grouped = monthEdgeGroups(reads, new Set([monthOfHour(lastHourOf(edge.res, edge.index))]), cmp);
    const edges = [...grouped.values()].flat(2);
    expect(edges.filter((r) => r.index === edge.index)).toHaveLength(2);
    expect(edges.every((r) => lastHourOf(r.res, r.index) <= cmp)).toBe(true);
    expect(reads.filter((r) => isEdgeResolution(r.res)).length).toBeGreaterThan(50);
  });

  it('answers as a fresh read, and checks a warm month with one item, as a UTC read does', async () => {
    const cache = await recordedCache();
    expect(await cells(cache)).toEqual(await cells());
    if (isCluster(db.redis)) return; // INFO answers for one node
    await cells(cache, utcReads);
    const zone = await monitoredCommands(db.redis, space.prefix, () => cells(cache));
    const utc = await monitoredCommands(db.redis, space.prefix, () => cells(cache, utcReads));
    // Edges of days not compacted through (the current UTC day's from Kolkata's midnight at 18:30 UTC until that
    // day is compacted: 0-2 of them, by the time of day) are read alone, each costing ~10 commands; so is the
    // first month's. Read one by one, the 58 edges of compacted days would cost at least one command each.
    const alone = reads.filter((r) => isEdgeResolution(r.res) && lastHourOf(r.res, r.index) > cmp).length;
    console.log(`warm 30 days by day: Kolkata ${zone} commands, UTC ${utc}, ${alone} edges not compacted`);
    expect(zone).toBeLessThanOrEqual(utc + 12 + 10 * alone);
  });

  it('counts a late event into a recorded edge, before and after the edge, its day and month are sealed', async () => {
    const cache = await recordedCache();
    const before = await cells();
    // Written with its hour, day and month in one applyApiBatch call: the month gets a delta.
    await ingest.write([at(inEdge, 'key_late', 0)]);
    const later = await cells();
    expect(later).not.toEqual(before);
    expect(await cells(cache)).toEqual(later);
    // The edge sealed alone first (a new version), its month still with a delta.
    await sealApi(db.redis, space, API, cmp, { now, retention, only: edge.res as EdgeResolution });
    expect(await db.redis.exists(apiKeys(space, API).parts('m', monthOfHour(hourOf(inEdge))))).toBe(1);
    expect(await cells(cache)).toEqual(later);
    // Everything sealed: a new month version, recorded again, then used again.
    await sealAll();
    const hits = cache.stats().monthHits;
    expect(await cells(cache)).toEqual(later);
    expect(await cells(cache)).toEqual(later);
    expect(cache.stats().monthHits).toBeGreaterThan(hits);
  });

  it('counts a late event whose edge was staged apart from its month, the month sealed in between', async () => {
    const cache = await recordedCache();
    await expectStagedLateEventCounted({
      redis: db.redis,
      space,
      apiId: API,
      hour: hourOf(inEdge),
      edges: finder.at(inEdge).map(({ res, index }) => ({ res, index })),
      cmp,
      now,
      retention,
      cells,
      cache,
    });
  });

  it('never records an edge of a day not compacted through (written without its month)', async () => {
    // Another API, compacted up to 20:00 UTC of a day two days ago: that day's edge (from 18:30) is written
    // without its month, so it must be read on its own, even beside a grouped month's days.
    const api = 'api_open_edge';
    let day = dayOfHour(nowHour) - 2;
    while (monthOfHour(day * 24) !== monthOfHour((day - 5) * 24)) day--; // the six days share one month
    const open = new Ingest(db.redis, space, retention, api, now);
    const events: TestEvent[] = [];
    for (let d = day - 5; d <= day; d++)
      for (let h = 0; h < 24; h++) events.push(at((d * 24 + h) * HOUR_MS + 40 * 60_000, 'key_0', 0));
    await open.write(events);
    const through = day * 24 + 20;
    await compactApi(db.redis, space, api, { closedBound: through, retention, now });
    await sealApi(db.redis, space, api, cmp, { now, retention });
    const [edgeOfDay] = finder.at((day * 24 + 20) * HOUR_MS);
    const edgeRead: BucketRead = { res: edgeOfDay!.res, index: edgeOfDay!.index, slice: (day - 1) * DAY_MS };
    const plan: BucketRead[] = [
      ...Array.from({ length: 5 }, (_, n) => ({
        res: 'd' as const,
        index: day - 5 + n,
        slice: (day - 5 + n) * DAY_MS,
      })),
      edgeRead,
    ];
    const cellsOf = (cache?: SectionCache) => readCellLines(db.redis, space, api, q, plan, through, cache);
    const cache = new SectionCache(1 << 24);
    expect(await cellsOf(cache)).toEqual(await cellsOf());
    expect(await cellsOf(cache)).toEqual(await cellsOf());
    // A live event into the edge: written to its hour and edge alone.
    await open.write([at((day * 24 + 22) * HOUR_MS, 'key_0', 1)]);
    expect(await db.redis.exists(apiKeys(space, api).parts('m', monthOfHour(day * 24)))).toBe(0);
    const later = await cellsOf();
    expect(await cellsOf(cache)).toEqual(later);
  });
});

// A rollup that holds nothing, recorded (rollup-children.ts): a small API's quiet day read by hour is one M item
// once recorded, not 24 hours checked one by one; and a late event into one of its compacted hours, written as
// ingest writes it (with its day in the same call, or with the hour staged apart from its day), is counted.
import { beforeAll, describe, expect, it } from 'vitest';
import { dayOfHour, horizonsAt, hourOf, planReads } from '@va/core';
import { compactApi } from './compaction';
import { isCluster } from './connection';
import { apiKeys } from './keys';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION as retention } from './testing/ingest-events';
import { expectStagedLateEventCounted } from './testing/late-events';
import { monitoredCommands } from './testing/monitor';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('empty-rollups');
const { space } = db;
const API = 'api_quiet';
const now = Date.now();
const nowHour = hourOf(now);
const cmp = nowHour - 2;
/** Yesterday (UTC): no event, every hour compacted. */
const quiet = dayOfHour(nowHour) - 1;
const q = cubeQuery({ cube: 'k', group: { key: true, identity: false, set: false } });
const reads = planReads({
  startHour: quiet * 24,
  endHour: quiet * 24 + 23,
  granularity: 'hour',
  compactedThrough: cmp,
  horizons: horizonsAt(now, retention),
  dataThroughHour: nowHour,
}).reads;

const cells = (cache?: SectionCache): Promise<string[]> =>
  readCellLines(db.redis, space, API, q, reads, cmp, cache);

let ingest: Ingest;
const sealAll = () => sealApi(db.redis, space, API, cmp, { now, retention });

beforeAll(async () => {
  // Events three days ago and in the open hour only: yesterday's day, and its hours, do not exist.
  ingest = new Ingest(db.redis, space, retention, API, now);
  const day = (quiet - 2) * 24;
  await ingest.write([
    { hour: day + 2, key: 'key_a', outcome: 0 },
    { hour: day + 7, key: 'key_b', outcome: 1 },
    { hour: nowHour, key: 'key_a', outcome: 0 },
  ]);
  await compactApi(db.redis, space, API, { closedBound: cmp, retention, now });
  await sealAll();
  expect(await db.redis.exists(apiKeys(space, API).section('d', quiet, 't'))).toBe(0);
});

describe('a rollup that holds nothing', () => {
  it('is checked alone once recorded: its hours are not read one by one', async () => {
    expect(reads.filter((r) => r.res === 'h')).toHaveLength(24);
    const cache = new SectionCache(1 << 24);
    expect(await cells(cache)).toEqual([]);
    expect(await cells(cache)).toEqual([]);
    expect(cache.stats().dayHits).toBeGreaterThanOrEqual(1);
    if (isCluster(db.redis)) return; // MONITOR answers for one node
    const cold = await monitoredCommands(db.redis, space.prefix, () => cells());
    const warm = await monitoredCommands(db.redis, space.prefix, () => cells(cache));
    console.log(`a quiet day by hour: ${cold} Redis commands without the cache, ${warm} recorded`);
    expect(warm).toBeLessThan(cold / 4);
  });

  it('counts a late event into one of its compacted hours, written with its day', async () => {
    const cache = new SectionCache(1 << 24);
    await cells(cache);
    await cells(cache);
    await ingest.write([{ hour: quiet * 24 + 5, key: 'key_c', outcome: 0 }]);
    const later = await cells();
    expect(later).toHaveLength(1);
    expect(await cells(cache)).toEqual(later);
    await sealAll();
    expect(await cells(cache)).toEqual(later);
    expect(await cells(cache)).toEqual(later);
  });

  it('counts a late event whose hour was staged apart from its day, sealed in between', async () => {
    const cache = new SectionCache(1 << 24);
    await cells(cache);
    await cells(cache);
    const hour = quiet * 24 + 9;
    await expectStagedLateEventCounted({
      redis: db.redis,
      space,
      apiId: API,
      hour,
      cmp,
      now,
      retention,
      cells,
      cache,
    });
  });
});

// An hour keeps no x (identity × key) section: a reader of x gets its f section instead, with a row
// per tag set (seal.ts withIdentityKey). The reader derives the x rows once and keeps those: the
// answers stay those of the f rows, and the cache holds the smaller section.
import { beforeAll, describe, expect, it } from 'vitest';
import { hourOf } from '@va/core';
import { compactApi } from './compaction';
import { apiKeys } from './keys';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION as retention } from './testing/ingest-events';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('hour-identity-key');
const { space } = db;
const API = 'api_hour_x';
const now = Date.now();
const hour = hourOf(now) - 3;
const cmp = hour;
const TAGS = [[], ['a'], ['b'], ['a', 'b'], ['c']];
/** Cube f grouped by key and identity, without tag sets: read from x sections (sectionCubeOf). */
const q = cubeQuery({ cube: 'f', group: { key: true, identity: true, set: false } });
const reads = [{ res: 'h' as const, index: hour, slice: null }];

const cells = (cache?: SectionCache): Promise<string[]> =>
  readCellLines(db.redis, space, API, q, reads, cmp, cache);

beforeAll(async () => {
  const ingest = new Ingest(db.redis, space, retention, API, now);
  const events = [];
  for (let n = 0; n < 200; n++) {
    events.push({ hour, key: `key_${n % 4}`, identity: `id_${n % 3}`, tags: TAGS[n % 5]!, outcome: n % 2 });
  }
  await ingest.write(events);
  await compactApi(db.redis, space, API, { closedBound: cmp, retention, now });
  await sealApi(db.redis, space, API, cmp, { now, retention });
  const keys = apiKeys(space, API);
  expect(await db.redis.exists(keys.section('h', hour, 'x'))).toBe(0);
  expect(await db.redis.exists(keys.section('h', hour, 'f'))).toBe(1);
});

describe("an hour's x rows, read from its f section", () => {
  it('are kept as an x section of one row per (identity, key), answering as the f rows do', async () => {
    const expected = await cells();
    // 3 identities × 4 keys, 12 distinct pairs: the f section holds a row per tag set too.
    expect(expected).toHaveLength(12);
    const cache = new SectionCache(1 << 24);
    expect(await cells(cache)).toEqual(expected);
    const kept = cache.get(apiKeys(space, API).section('h', hour, 'x'));
    expect(kept?.section.cube).toBe('x');
    expect(kept?.section.rows).toBe(12);
    // Used again from the cache (Redis sends nothing: the version is current).
    const misses = cache.stats().misses;
    expect(await cells(cache)).toEqual(expected);
    expect(cache.stats().misses).toBe(misses);
  });
});

/** readCounts/decodeCells against counters written by the ingest batch processor. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { hourOf, type BucketRead } from '@va/core';
import { loadConfig } from '@va/config';
import { deletePrefix, connectTarget, testRedisTarget } from '@va/testkit/support';
import { seedEvents } from '@va/testkit/seed';
import { apiKeys, type KeySpace } from './keys';
import { ReadDictionaries } from './read-dictionaries';
import { decodeCells, readApiMeta, readCounts, type CubeQuery } from './read';
import { type RedisClient } from '@va/store';

const prefix = `t-read-${Math.random().toString(36).slice(2, 8)}`;
const space: KeySpace = { prefix, generation: 1 };
const now = Date.now();
const h0 = hourOf(now) - 3;
const retention = loadConfig({}).retention;
let redis: RedisClient;

const KEYS = 80; // more than one shard (32 codes) and more than the HMGET limit
const events: VerificationEvent[] = Array.from({ length: 400 }, (_, n) => ({
  requestId: `r${n}`,
  time: (h0 + (n % 3)) * 3_600_000 + n,
  workspaceId: 'ws',
  apiId: 'api_read',
  keyId: `key_${n % KEYS}`,
  outcome: n % 5 === 0 ? 'EXPIRED' : 'VALID',
  ...(n % 2 === 0 && { identity: { id: `id_${n % 7}`, externalId: `x${n % 7}` } }),
  tags: n % 3 === 0 ? [] : [`t${n % 4}`, 'all'],
}));
const reads: BucketRead[] = [0, 1, 2].map((i) => ({ res: 'h', index: h0 + i, slice: null }));
const q = (over: Partial<CubeQuery>): CubeQuery => ({
  cube: 'k',
  keys: null,
  identities: null,
  sets: null,
  group: { key: false, identity: false, set: false },
  ...over,
});

beforeAll(async () => {
  redis = connectTarget(testRedisTarget());
  await seedEvents(redis, events, { prefix, now, retention });
});
afterAll(async () => {
  await deletePrefix(testRedisTarget(), prefix);
  redis.disconnect();
});

async function totals(query: CubeQuery) {
  const dicts = new ReadDictionaries(redis, space, 'api_read');
  const read = await readCounts(redis, space, 'api_read', query, reads, null);
  if (!read.ok) throw new Error('cmp moved');
  const cells = await decodeCells(read.counts, dicts);
  return cells.reduce((sum, c) => sum + c.counts.reduce((a, b) => a + b, 0), 0);
}

describe('readCounts', () => {
  it('finds the first hour and the compaction point', async () => {
    expect(await readApiMeta(redis, space, 'api_read', { firstHour: true })).toEqual({
      compactedThrough: null,
      firstHour: h0,
    });
  });

  it('gives the same totals from every cube and read strategy', async () => {
    expect(await totals(q({ cube: 't' }))).toBe(400);
    expect(await totals(q({ cube: 'k', group: { key: true, identity: false, set: false } }))).toBe(400);
    expect(await totals(q({ cube: 'i', group: { key: false, identity: true, set: false } }))).toBe(200);
    expect(await totals(q({ cube: 's', group: { key: false, identity: false, set: true } }))).toBe(400);
    expect(await totals(q({ cube: 'f', group: { key: true, identity: false, set: true } }))).toBe(400);
    const all = Array.from({ length: KEYS }, (_, n) => n);
    expect(await totals(q({ cube: 'k', keys: all }))).toBe(400); // parts + HGETALL
    expect(await totals(q({ cube: 'k', keys: all.slice(0, 40) }))).toBe(200); // HMGET, two shards
    expect(await totals(q({ cube: 'k', keys: [] }))).toBe(0);
  });

  it('gives the same cells with parts from the dictionary length and in many small calls', async () => {
    const dicts = new ReadDictionaries(redis, space, 'api_read');
    await dicts.load(['k', 'i', 's']);
    const cellsOf = async (query: CubeQuery, maxKeys?: number) => {
      const read = await readCounts(redis, space, 'api_read', query, reads, null, maxKeys ? { maxKeys } : {});
      if (!read.ok) throw new Error('cmp moved');
      const cells = await decodeCells(read.counts, dicts);
      return cells.map((c) => JSON.stringify(c)).sort();
    };
    const all = Array.from({ length: KEYS }, (_, n) => n);
    const queries: CubeQuery[] = [
      q({ cube: 'k', group: { key: true, identity: false, set: false } }),
      q({ cube: 'k', keys: all }),
      q({ cube: 'i', group: { key: false, identity: true, set: false } }),
      q({ cube: 's', group: { key: false, identity: false, set: true } }),
      q({ cube: 'f', group: { key: true, identity: true, set: true } }),
    ];
    for (const query of queries) {
      const expected = await cellsOf(query);
      expect(expected.length).toBeGreaterThan(0);
      expect(await cellsOf(query, 1)).toEqual(expected);
      if (query.cube !== 'f') {
        const codeCount = dicts.size(query.cube as 'k' | 'i' | 's');
        expect(await cellsOf({ ...query, codeCount })).toEqual(expected);
        expect(await cellsOf({ ...query, codeCount }, 2)).toEqual(expected);
      }
    }
  });

  it('decodes codes newer than the loaded dictionaries', async () => {
    const dicts = new ReadDictionaries(redis, space, 'api_read');
    await dicts.load(['k']);
    await seedEvents(redis, [{ ...events[0]!, requestId: 'late', keyId: 'key_late' }], {
      prefix,
      now,
      retention,
    });
    const read = await readCounts(
      redis,
      space,
      'api_read',
      q({ group: { key: true, identity: false, set: false } }),
      reads,
      null,
    );
    if (!read.ok) throw new Error('cmp moved');
    const cells = await decodeCells(read.counts, dicts);
    expect(cells.find((c) => c.keyId === 'key_late')?.counts[8]).toBe(1); // events[0] is EXPIRED
    expect(cells.filter((c) => c.keyId === 'key_1')[0]!.identity).toBeUndefined();
  });

  it('tells the caller to plan again when the compaction point moved under an overlapping plan', async () => {
    const overlapping: BucketRead[] = [
      { res: 'd', index: Math.floor(h0 / 24), slice: null },
      { res: 'h', index: h0, slice: null },
    ];
    await redis.set(apiKeys(space, 'api_read').compactedThrough, String(h0 - 1));
    expect(await readCounts(redis, space, 'api_read', q({ cube: 't' }), overlapping, null)).toEqual({
      ok: false,
      compactedThrough: h0 - 1,
    });
    expect((await readCounts(redis, space, 'api_read', q({ cube: 't' }), overlapping, h0 - 1)).ok).toBe(true);
    // In several calls (one per family: the day with its hour): every call checks the point.
    const twoFamilies: BucketRead[] = [...overlapping, { res: 'h', index: h0 + 1, slice: null }];
    const split = { maxKeys: 1 };
    const byKey = q({ cube: 'k', group: { key: true, identity: false, set: false }, codeCount: KEYS + 1 });
    expect(await readCounts(redis, space, 'api_read', byKey, twoFamilies, null, split)).toEqual({
      ok: false,
      compactedThrough: h0 - 1,
    });
    expect((await readCounts(redis, space, 'api_read', byKey, twoFamilies, h0 - 1, split)).ok).toBe(true);
    await redis.del(apiKeys(space, 'api_read').compactedThrough);
  });
});

describe('ReadDictionaries', () => {
  it('indexes externalIds and tags for filters; concurrent loads do not duplicate entries', async () => {
    const dicts = new ReadDictionaries(redis, space, 'api_read');
    await Promise.all([dicts.load(['k', 'i', 's']), dicts.load(['k', 'i', 's']), dicts.load(['s'])]);
    expect(dicts.size('k')).toBe(KEYS + 1);
    expect(dicts.identityCodesOf('x3').map((c) => dicts.identity(c))).toEqual([
      { id: 'id_3', externalId: 'x3' },
    ]);
    expect(dicts.identityCodesOf('nobody')).toEqual([]);
    const withAll = dicts.setCodesWithAll(['all']).map((c) => dicts.tagSet(c));
    expect(withAll).toHaveLength(4);
    expect(dicts.setCodesWithAll(['all', 't1']).map((c) => dicts.tagSet(c))).toEqual([['all', 't1']]);
    expect(dicts.setCodesWithAll(['t1', 't2'])).toEqual([]);
    const tags = new Set<string>();
    for (let code = 0; code < dicts.size('s'); code++) for (const tag of dicts.tagSet(code)!) tags.add(tag);
    expect(tags.size).toBeGreaterThan(1);
    expect(dicts.tagCount()).toBe(tags.size);
    expect(dicts.keyCodes(['key_3', 'key_none'])).toHaveLength(1);
  });
});

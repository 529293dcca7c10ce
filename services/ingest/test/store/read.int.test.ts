/**
 * libs/store's readCounts/decodeCells against counters written by the ingest batch processor. Here, not in
 * libs/store, because seeding through ingest from the store's own tests would be a package cycle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { hourOf, type BucketRead } from '@va/core';
import { loadConfig } from '@va/config';
import { testRedisTarget } from '@va/testkit/support';
import { connectTarget, deletePrefix, readBucketsOnce, cubeQuery } from '@va/store/testing';
import { seedEvents } from '../../src/testing';
import {
  apiKeys,
  beginSeal,
  type CubeQuery,
  decodeCells,
  type KeySpace,
  readApiMeta,
  readCounts,
  ReadDictionaries,
  type RedisClient,
  sealBucket,
} from '@va/store';

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
const q = cubeQuery;

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
    const cellsOf = async (query: CubeQuery, maxKeys?: number, partsBudget?: number) => {
      const read = await readCounts(redis, space, 'api_read', query, reads, null, {
        ...(maxKeys && { maxKeys }),
        ...(partsBudget && { partsBudget }),
      });
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
      // #39 item 4: P items bounded to one hash each, the rest read by C calls.
      expect(await cellsOf(query, undefined, 1)).toEqual(expected);
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

describe('#39 item 4: the parts of an unsealed bucket in calls of bounded work', () => {
  // The open hour: ingest writes it as hashes (older hours come as section parts), one k hash
  // per 32 keys and one f hash per 32 identities.
  const hour = hourOf(now);
  const api = 'api_open';
  const keys = apiKeys(space, api);
  const open: VerificationEvent[] = Array.from({ length: 300 }, (_, n) => ({
    requestId: `open${n}`,
    time: Math.min(now, hour * 3_600_000 + n),
    workspaceId: 'ws',
    apiId: api,
    keyId: `key_${n % 200}`,
    outcome: 'VALID',
    identity: { id: `id_${n % 100}`, externalId: `x${n % 100}` },
  }));
  const openReads: BucketRead[] = [{ res: 'h', index: hour, slice: null }];
  beforeAll(() => seedEvents(redis, open, { prefix, now, retention }));

  it('readCounts gives the same cells with P items of one hash each, the rest read by C calls', async () => {
    const dicts = new ReadDictionaries(redis, space, api);
    for (const query of [
      q({ cube: 'k', group: { key: true, identity: false, set: false } }),
      q({ cube: 'f', group: { key: true, identity: true, set: false } }),
    ]) {
      const cellsOf = async (partsBudget?: number) => {
        const read = await readCounts(
          redis,
          space,
          api,
          query,
          openReads,
          null,
          partsBudget ? { partsBudget } : {},
        );
        if (!read.ok) throw new Error('plan again');
        return (await decodeCells(read.counts, dicts)).map((c) => JSON.stringify(c)).sort();
      };
      const whole = await cellsOf();
      expect(whole.length).toBeGreaterThan(50);
      expect(await cellsOf(1)).toEqual(whole);
      expect(await cellsOf(30)).toEqual(whole);
    }
  });

  const root = `${keys.bucketPrefix('h', hour)}:`;
  const partsItem = (budget: number) =>
    readBucketsOnce(redis, [
      4,
      keys.compactedThrough,
      keys.parts('h', hour),
      keys.sealingParts('h', hour),
      keys.sealSequence,
      'P',
      root,
      'k',
      '0',
      String(budget),
    ]);
  const leftItem = (guard: string, names: string[], budget = 1_000) =>
    readBucketsOnce(redis, [
      3 + names.length,
      keys.compactedThrough,
      keys.sealSequence,
      keys.sealingParts('h', hour),
      ...names.map((name) => root + name),
      'C',
      guard,
      String(names.length),
      String(budget),
    ]);

  it('a P item reads within its budget and names the rest; C items read them while no seal began', async () => {
    const [, whole] = (await partsItem(1_000_000)) as [unknown, unknown[]];
    expect(whole[0]).toEqual([]);
    const [, bounded] = (await partsItem(1)) as [unknown, [string[], string, ...string[]]];
    const [rest, guard, ...pairs] = bounded;
    expect(pairs).toHaveLength(2); // the first hash is always read
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.length * 2 + pairs.length).toBe(whole.length - 2);
    const [, texts] = (await leftItem(guard, rest)) as [unknown, string[]];
    expect(texts).toHaveLength(rest.length);
    // A budget spent by the first hash: one hash per call.
    expect(((await leftItem(guard, rest, 1)) as [unknown, string[]])[1]).toHaveLength(1);
  });

  it('a C item refuses to read once a seal of the bucket began or was committed after its P item', async () => {
    const [, [rest, guard]] = (await partsItem(1)) as [unknown, [string[], string]];
    const target = { keys, res: 'h' as const, index: hour };
    const begun = await beginSeal(redis, target);
    expect(begun.kind).toBe('seal');
    expect(((await leftItem(guard, rest)) as unknown[])[1]).toBeNull();
    // A guard taken during the seal fails once the seal is committed (zparts gone).
    const [, [, during]] = (await partsItem(1)) as [unknown, [string[], string]];
    await sealBucket(redis, space, api, 'h', hour, { now, retention });
    expect(((await leftItem(during, rest)) as unknown[])[1]).toBeNull();
    // And readCounts, bounded, still counts every event exactly once after the seal.
    const read = await readCounts(redis, space, 'api_read', q({ cube: 't' }), reads, null, {
      partsBudget: 1,
    });
    if (!read.ok) throw new Error('plan again');
    const dicts = new ReadDictionaries(redis, space, 'api_read');
    const cells = await decodeCells(read.counts, dicts);
    expect(cells.reduce((sum, c) => sum + c.counts.reduce((a, b) => a + b, 0), 0)).toBe(401);
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

  it('indexes regions: a tag-set code is a tag set and a region; codes without a region have none', async () => {
    const regional = ([undefined, 'eu', 'us', '', 'eu'] as const).map((region, n): VerificationEvent => ({
      ...events[0]!,
      requestId: `region${n}`,
      apiId: 'api_regions',
      tags: n === 4 ? [] : ['a', 'b'],
      ...(region !== undefined && { region }),
    }));
    await seedEvents(redis, regional, { prefix, now, retention });
    const dicts = new ReadDictionaries(redis, space, 'api_regions');
    await dicts.load(['s']);
    // ['a','b'] without region (twice: none and ''), in eu and in us; [] in eu.
    expect(dicts.size('s')).toBe(4);
    const entries = Array.from({ length: 4 }, (_, code) => [dicts.tagSet(code), dicts.region(code)]);
    expect(entries).toEqual([
      [['a', 'b'], undefined],
      [['a', 'b'], 'eu'],
      [['a', 'b'], 'us'],
      [[], 'eu'],
    ]);
    expect(dicts.hasRegions()).toBe(true);
    expect(dicts.regionCount()).toBe(2);
    expect(dicts.setCodesInRegions(['eu', 'eu', 'nowhere'])).toEqual([1, 3]);
    expect(dicts.setCodesWithAll(['a'])).toEqual([0, 1, 2]);
  });
});

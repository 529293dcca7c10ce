/**
 * readCounts over sealed sections (docs/store-v2.md "Reading"): the same events written into two
 * key spaces, one left in the v1 layout (delta hashes only), one sealed bucket by bucket into every
 * state a reader can meet (sealed, sealed with a new delta, being sealed with a new delta, delta
 * only), must give the same cells for every cube and filter, with and without a section cache, in
 * one call or in many. Written by the ingest batch processor (seedEvents): here, not in libs/store, because
 * seeding through ingest from the store's own tests would be a package cycle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { daysOfMonth, hourOf, monthOfDay, type BucketRead } from '@va/core';
import { loadConfig } from '@va/config';
import { testRedisTarget } from '@va/testkit/support';
import { beginSealOnly, connectTarget, deletePrefix, sealNow, cubeQuery } from '@va/store/testing';
import { seedEvents } from '../../src/testing';
import {
  apiKeys,
  compactApi,
  type CubeQuery,
  decodeCells,
  decodeSection,
  deriveIdentityKey,
  encodeSection,
  type KeySpace,
  readCounts,
  ReadDictionaries,
  type ReadOptions,
  type RedisClient,
  SectionCache,
  sectionCubeOf,
  sectionVersion,
} from '@va/store';

const API = 'api_sections';
const run = Math.random().toString(36).slice(2, 8);
const plain: KeySpace = { prefix: `t-rsec-plain-${run}`, generation: 1 };
const sealed: KeySpace = { prefix: `t-rsec-sealed-${run}`, generation: 1 };
const now = Date.now();
const h0 = hourOf(now) - 5;
const retention = loadConfig({}).retention;
let redis: RedisClient;

const KEYS = 80; // more than one shard (32 codes) and more than the HMGET limit
const event = (n: number, hour: number, tag = ''): VerificationEvent => ({
  requestId: `r${n}${tag}`,
  time: hour * 3_600_000 + n,
  workspaceId: 'ws',
  apiId: API,
  keyId: `key_${(n * 7) % KEYS}`,
  outcome: n % 5 === 0 ? 'EXPIRED' : n % 7 === 0 ? 'RATE_LIMITED' : 'VALID',
  ...(n % 3 !== 0 && { identity: { id: `id_${n % 11}`, externalId: `x${n % 11}` } }),
  tags: n % 4 === 0 ? [] : [`t${n % 5}`, 'all'],
});
const first = Array.from({ length: 600 }, (_, n) => event(n, h0 + (n % 4)));
const late = Array.from({ length: 150 }, (_, n) => event(n, h0 + (n % 4), 'late'));
const reads: BucketRead[] = [0, 1, 2, 3].map((i) => ({
  res: 'h',
  index: h0 + i,
  slice: (h0 + i) * 3_600_000,
}));
const at = (i: number) => ({ space: sealed, apiId: API, res: 'h' as const, index: h0 + i });

const seal = (bucket: ReturnType<typeof at>) => sealNow(redis, bucket, { now, retention });

async function seedBoth(events: readonly VerificationEvent[]): Promise<void> {
  for (const space of [plain, sealed])
    await seedEvents(redis, events, { prefix: space.prefix, now, retention });
}

beforeAll(async () => {
  redis = connectTarget(testRedisTarget());
  await seedBoth(first);
  // Hour 0 sealed; hour 1 sealed, then a new delta; hour 2 sealed, being sealed again with a new
  // delta beside it; hour 3 delta only.
  await seal(at(0));
  await seal(at(1));
  await seal(at(2));
  await seedBoth(late.filter((e) => hourOf(e.time) !== h0));
  await beginSealOnly(redis, at(2));
  await seedBoth(
    late.filter((e) => hourOf(e.time) === h0 + 2).map((e) => ({ ...e, requestId: `${e.requestId}b` })),
  );
});
afterAll(async () => {
  for (const space of [plain, sealed]) await deletePrefix(testRedisTarget(), space.prefix);
  redis.disconnect();
});

const q = cubeQuery;
const none = { key: false, identity: false, set: false };
const range = (n: number) => Array.from({ length: n }, (_, c) => c);

async function cells(
  space: KeySpace,
  query: CubeQuery,
  options: ReadOptions = {},
  bucketReads: readonly BucketRead[] = reads,
  cmp: number | null = null,
): Promise<string[]> {
  const dicts = new ReadDictionaries(redis, space, API);
  const read = await readCounts(redis, space, API, query, bucketReads, cmp, options);
  if (!read.ok) throw new Error('cmp moved');
  return (await decodeCells(read.counts, dicts)).map((c) => JSON.stringify(c)).sort();
}

const QUERIES: [string, CubeQuery][] = [
  ['totals', q({ cube: 't' })],
  ['by key', q({ cube: 'k', group: { ...none, key: true } })],
  ['a few keys (HMGET)', q({ cube: 'k', keys: [1, 2, 40, 79] })],
  ['many keys (parts)', q({ cube: 'k', keys: range(70), group: { ...none, key: true } })],
  ['by identity', q({ cube: 'i', group: { ...none, identity: true } })],
  ['one identity', q({ cube: 'i', identities: [3] })],
  ['by set', q({ cube: 's', group: { ...none, set: true } })],
  ['some sets', q({ cube: 's', sets: [0, 2, 3] })],
  ['everything (f)', q({ cube: 'f', group: { key: true, identity: true, set: true } })],
  ['one identity by key (x)', q({ cube: 'f', identities: [2], group: { ...none, key: true } })],
  ['identities by key (x, parts)', q({ cube: 'f', group: { key: true, identity: true, set: false } })],
  ['keys by identity (x)', q({ cube: 'f', keys: [0, 7, 14], group: { ...none, identity: true } })],
  [
    'one identity, some sets (f)',
    q({ cube: 'f', identities: [4], sets: [1, 2], group: { ...none, key: true } }),
  ],
  ['key and set without identity (f)', q({ cube: 'f', keys: range(40), group: { ...none, set: true } })],
];

describe('readCounts over sections, sealing hashes and deltas', () => {
  it('has every bucket state it means to test', async () => {
    const keys = apiKeys(sealed, API);
    // Hours get no x section (seal.ts withIdentityKey): queries of x read f there.
    expect(await redis.exists(keys.section('h', h0, 'f'), keys.section('h', h0, 'x'))).toBe(1);
    expect(await redis.exists(keys.parts('h', h0))).toBe(0);
    expect(await redis.exists(keys.parts('h', h0 + 1), keys.section('h', h0 + 1, 't'))).toBe(2);
    expect(await redis.exists(keys.sealingParts('h', h0 + 2), keys.parts('h', h0 + 2))).toBe(2);
    expect(await redis.exists(keys.section('h', h0 + 3, 't'))).toBe(0);
  });

  it.each(QUERIES)(
    '%s: the cells of the v1 layout, in one call, in many, and from a cache',
    async (_name, query) => {
      const expected = await cells(plain, query);
      expect(expected.length).toBeGreaterThan(0);
      expect(await cells(sealed, query)).toEqual(expected);
      expect(await cells(sealed, query, { maxKeys: 1 })).toEqual(expected);
      if (query.cube === 'k' || query.cube === 'i' || query.cube === 's') {
        // Parts named from the dictionary's length (hours after the compaction point).
        const dicts = new ReadDictionaries(redis, sealed, API);
        await dicts.load([query.cube]);
        expect(await cells(sealed, { ...query, codeCount: dicts.size(query.cube) })).toEqual(expected);
      }
      const cache = new SectionCache(1 << 20);
      expect(await cells(sealed, query, { sections: cache })).toEqual(expected);
      expect(cache.stats()).toMatchObject({ hits: 0, misses: 3 }); // hours 0-2 have a section
      expect(await cells(sealed, query, { sections: cache })).toEqual(expected);
      expect(cache.stats()).toMatchObject({ hits: 3, misses: 3 });
    },
  );

  it('reads x sections only where the query needs no tag set', () => {
    expect(sectionCubeOf(q({ cube: 'f', identities: [1], group: { ...none, key: true } }))).toBe('x');
    expect(sectionCubeOf(q({ cube: 'f', sets: [1], identities: [1] }))).toBe('f');
    expect(sectionCubeOf(q({ cube: 'f', group: { ...none, key: true, set: true } }))).toBe('f');
    expect(sectionCubeOf(q({ cube: 'k' }))).toBe('k');
  });

  it('never serves a cached section past a new seal of its bucket', async () => {
    const query = q({ cube: 'k', group: { ...none, key: true } });
    const cache = new SectionCache(1 << 20);
    expect(await cells(sealed, query, { sections: cache })).toEqual(await cells(plain, query));
    // Hour 1's delta and hour 2's sealing hashes go into new sections (new versions).
    await seal(at(2));
    await seal(at(1));
    const more = late.slice(0, 40).map((e) => ({ ...e, requestId: `${e.requestId}c` }));
    await seedBoth(more);
    const before = cache.stats();
    expect(await cells(sealed, query, { sections: cache })).toEqual(await cells(plain, query));
    const after = cache.stats();
    expect(after.misses - before.misses).toBe(2); // hours 1 and 2 sent again
    expect(after.hits - before.hits).toBe(1); // hour 0 unchanged
  });

  it('reads the x section where a bucket has one (days and months), else the f section', async () => {
    const queries = QUERIES.filter(([name]) => name.includes('(x'));
    expect(queries.length).toBeGreaterThan(1);
    // The sealer writes x beside f for days and months; here hour 0 gets one the same way.
    const keys = apiKeys(sealed, API);
    const f = await redis.getBuffer(keys.section('h', h0, 'f'));
    const x = deriveIdentityKey(decodeSection(f!), sectionVersion(f!));
    await redis.set(keys.section('h', h0, 'x'), encodeSection(x));
    for (const withX of [true, false]) {
      if (!withX) await redis.del(keys.section('h', h0, 'x'));
      for (const [, query] of queries) {
        const expected = await cells(plain, query);
        expect(await cells(sealed, query)).toEqual(expected);
        expect(await cells(sealed, query, { sections: new SectionCache(1 << 20) })).toEqual(expected);
      }
    }
  });

  it('keeps nothing larger than its bound, and still answers', async () => {
    const query = q({ cube: 'f', group: { key: true, identity: true, set: true } });
    const cache = new SectionCache(100);
    expect(await cells(sealed, query, { sections: cache })).toEqual(await cells(plain, query));
    expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0 });
  });
});

describe('a month of days read as one (month-days.ts)', () => {
  // Ten days of last month, compacted into their day and month rollups, and sealed in one space.
  const month = monthOfDay(Math.floor(hourOf(now) / 24)) - 1;
  const day0 = daysOfMonth(month)[0] + 3;
  const days: BucketRead[] = Array.from({ length: 10 }, (_, n) => ({
    res: 'd',
    index: day0 + n,
    slice: (day0 + n) * 86_400_000,
  }));
  // Prefixes inside the file's own (deleted with them).
  const spaces = {
    plain: { ...plain, prefix: `${plain.prefix}-m` },
    sealed: { ...sealed, prefix: `${sealed.prefix}-m` },
  };
  const cmp = hourOf(now) - 1;
  const seedDays = async (events: readonly VerificationEvent[]) => {
    for (const space of Object.values(spaces)) {
      await seedEvents(redis, events, { prefix: space.prefix, now, retention });
      await compactApi(redis, space, API, { closedBound: cmp, retention, now });
    }
  };
  const sealAll = async () => {
    // Twice: a seal left in progress is finished first, the delta written beside it next.
    for (let round = 0; round < 2; round++)
      for (const b of [
        ...days.map((d) => d.index).map((index) => ({ res: 'd' as const, index })),
        { res: 'm' as const, index: month },
      ])
        await sealNow(redis, { space: spaces.sealed, apiId: API, ...b }, { now, retention });
  };
  // By day, and all in one slice (a query without time granularity: the days' merged sum).
  const oneSlice = days.map((read) => ({ ...read, slice: null }));
  const dayCells = async (space: KeySpace, query: CubeQuery, options: ReadOptions = {}) => [
    await cells(space, query, options, days, cmp),
    await cells(space, query, options, oneSlice, cmp),
  ];

  beforeAll(async () => {
    await seedDays(Array.from({ length: 400 }, (_, n) => event(n, (day0 + (n % 10)) * 24 + (n % 24), 'm')));
    await sealAll();
  });

  it.each(QUERIES)(
    '%s: recorded, then summed after one check of the month, then read again after a late event',
    async (_name, query) => {
      const cache = new SectionCache(1 << 22);
      const expected = await dayCells(spaces.plain, query);
      expect(expected[0]!.length).toBeGreaterThan(0);
      expect(expected[1]!.length).toBeGreaterThan(0);
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(expected);
      expect(cache.stats().monthHits).toBe(1); // the one-slice read used the by-day read's record
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(expected);
      expect(cache.stats().monthHits).toBe(3);
      // A late event into one day: the month has a delta, its days are read one by one.
      await seedDays([event(7, (day0 + 4) * 24 + 2, `late-${_name}`)]);
      const later = await dayCells(spaces.plain, query);
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(later);
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(later);
      expect(cache.stats().monthHits).toBe(3);
      await sealAll();
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(later);
      expect(await dayCells(spaces.sealed, query, { sections: cache })).toEqual(later);
      expect(cache.stats().monthHits).toBe(6);
    },
  );
});

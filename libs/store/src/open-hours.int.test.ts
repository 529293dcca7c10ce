// Open hours sealed while they are written (open-hours.ts): two APIs get the same events in the open hour; one is
// sealed by the open-hour policy, over and over, also while writes go on; the other never is. Every read of the
// sealed one must equal the never-sealed one (a delta's read is the reference the other tests hold to events).
import { beforeAll, describe, expect, it } from 'vitest';
import { horizonsAt, hourOf, planReads } from '@va/core';
import { apiKeys } from './keys';
import type { CubeQuery } from './read';
import { readOpenHours } from './open-hours';
import { sealApi } from './seal';
import { SectionCache } from './section-cache';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION as retention, type TestEvent } from './testing/ingest-events';
import { readCellLines } from './testing/read-cells';

const db = fileRedis('open-hours');
const { space } = db;
const now = Date.now();
const open = hourOf(now);
/** The compactor's closed bound: the hour before; `open` still takes live writes. */
const closedBound = open - 1;
const SEALED = 'api_sealed';
const PLAIN = 'api_plain';
const reads = planReads({
  startHour: open,
  endHour: open,
  granularity: 'hour',
  compactedThrough: null,
  horizons: horizonsAt(now, retention),
  dataThroughHour: open,
}).reads;
const queries: CubeQuery[] = [
  cubeQuery({ cube: 't' }),
  cubeQuery({ cube: 'k', group: { key: true, identity: false, set: false } }),
  cubeQuery({ cube: 's', group: { key: false, identity: false, set: true } }),
  cubeQuery({ cube: 'f', group: { key: true, identity: true, set: true } }),
];

let sealedIngest: Ingest;
let plainIngest: Ingest;
let round = 0;
/** Events of the open hour over many keys, identities and tag sets, so that its delta has many hashes. */
function events(n: number): TestEvent[] {
  round++;
  return Array.from({ length: n }, (_, e) => ({
    hour: open,
    key: `key_${(e * 7 + round) % 40}`,
    identity: e % 3 === 0 ? undefined : `id_${(e + round) % 25}`,
    tags: e % 4 === 0 ? [] : [`t${e % 9}`, `u${(e + round) % 5}`],
    outcome: (e + round) % 9,
  }));
}
async function write(n: number): Promise<void> {
  const batch = events(n);
  await sealedIngest.write(batch);
  await plainIngest.write(batch);
}

const cells = (apiId: string, q: CubeQuery, cache?: SectionCache): Promise<string[]> =>
  readCellLines(db.redis, space, apiId, q, reads, null, cache);
async function expectSameAnswers(cache?: SectionCache): Promise<void> {
  for (const q of queries) expect(await cells(SEALED, q, cache), q.cube).toEqual(await cells(PLAIN, q));
}
const sealOpen = (policy: { minHashes: number; everyMs: number }) =>
  sealApi(db.redis, space, SEALED, closedBound, { now: Date.now(), retention, openHours: policy });
const version = async () =>
  (await db.redis.getrangeBuffer(apiKeys(space, SEALED).section('h', open, 't'), 4, 11)).toString('hex');
const deltaHashes = () => db.redis.scard(apiKeys(space, SEALED).parts('h', open));

beforeAll(async () => {
  sealedIngest = new Ingest(db.redis, space, retention, SEALED, now);
  plainIngest = new Ingest(db.redis, space, retention, PLAIN, now);
  await write(400);
});

describe('an open hour sealed while it is written', () => {
  it('is left alone without the policy, or when its delta has fewer hashes than the policy asks', async () => {
    await sealApi(db.redis, space, SEALED, closedBound, { now: Date.now(), retention });
    expect(await version()).toBe('');
    const hashes = await deltaHashes();
    // t, k, i and s hashes, and f as the lists of its two identity shards (open-f-parts.ts).
    expect(hashes).toBeGreaterThanOrEqual(8);
    await sealOpen({ minHashes: hashes + 1, everyMs: 0 });
    expect(await version()).toBe('');
  });

  it('is sealed when its delta is large, and answers as before', async () => {
    await sealOpen({ minHashes: 8, everyMs: 60_000 });
    expect(await version()).not.toBe('');
    expect(await deltaHashes()).toBe(0);
    await expectSameAnswers();
  });

  it('counts writes after the seal, and is sealed again only once its last seal is old enough', async () => {
    const cache = new SectionCache(1 << 24);
    await expectSameAnswers(cache);
    await write(300);
    await expectSameAnswers(cache);
    const first = await version();
    await sealOpen({ minHashes: 8, everyMs: 3_600_000 });
    expect(await version()).toBe(first);
    await sealOpen({ minHashes: 8, everyMs: 0 });
    expect(await version()).not.toBe(first);
    await expectSameAnswers(cache);
  });

  it('counts each part of its f shard lists: few hashes but many busy batches are sealed too', async () => {
    const FEW = 'api_few';
    const ingest = new Ingest(db.redis, space, retention, FEW, now);
    // One key, one tag set, 20 identities of shard 0: 20 tuples a batch, f written as one part of L:f:0.
    const batch = Array.from({ length: 20 }, (_, e) => ({
      hour: open,
      key: 'k',
      identity: `id_${e}`,
      outcome: 0,
    }));
    for (let n = 0; n < 40; n++) await ingest.write(batch);
    const keys = apiKeys(space, FEW);
    expect(await db.redis.smembers(keys.parts('h', open))).toHaveLength(5); // t, k:0, i:0, s:0, L:f:0
    expect(await readOpenHours(db.redis, space, FEW, [{ res: 'h', index: open }])).toEqual([
      { res: 'h', index: open, hashes: 44, sealedAtMs: null },
    ]);
    await sealApi(db.redis, space, FEW, closedBound, {
      now: Date.now(),
      retention,
      openHours: { minHashes: 32, everyMs: 0 },
    });
    expect((await db.redis.getrangeBuffer(keys.section('h', open, 't'), 4, 11)).length).toBe(8);
    expect(await db.redis.exists(keys.cube('h', open, 'L:f:0'))).toBe(0);
  });

  it('stays exact while writes and seals of the open hour interleave', async () => {
    const cache = new SectionCache(1 << 24);
    const writes = (async () => {
      for (let n = 0; n < 15; n++) await write(60);
    })();
    const seals = (async () => {
      for (let n = 0; n < 15; n++) await sealOpen({ minHashes: 1, everyMs: 0 });
    })();
    await Promise.all([writes, seals]);
    await expectSameAnswers(cache);
    await sealOpen({ minHashes: 1, everyMs: 0 });
    await expectSameAnswers(cache);
  });
});

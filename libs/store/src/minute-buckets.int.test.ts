// Minute buckets (groupBy=minute; docs/design.md "The next store changes") against a real Redis: applyApiBatch,
// and applyStagedChunk when a call is over its bound, write each minute as two plain hashes (t, f) with the expiry
// minute end + minute retention, and nothing else (no parts set, no index or dirty entry); readCounts reads
// them back, one minute per slice, with filters and groups, the f hash's identities included, and a minute whose
// f a batch packed into one field (minute-increments.ts) reads as its fields would.
import { describe, expect, it } from 'vitest';
import { HOUR_MS, hourOf, minuteOf, minuteStart, type BucketRead } from '@va/core';
import { expand, TupleCounter } from './aggregate';
import { applyApiBatches } from './apply';
import { apiKeys } from './keys';
import type { CubeQuery } from './read';
import { MINUTE_CUBES } from './minute-increments';
import { readCounts } from './read/read-counts';
import { cubeQuery } from './testing/cube-query';
import { fileRedis } from './testing/file-redis';
import { TEST_RETENTION } from './testing/ingest-events';

const db = fileRedis('store-minute-buckets');
const { space, assignCodes } = db;
const retention = { ...TEST_RETENTION, minuteMs: 48 * HOUR_MS };

describe('minute buckets', () => {
  const now = Date.now();
  const minute = minuteOf(now);
  const cas = { offsetField: 'topic/0', expectedOff: null, newOff: 1, expectedCmp: null };

  /** 90 events over the last 3 minutes: 6 keys, 3 identities and none, 2 tag sets. */
  async function counterFor(api: string) {
    await assignCodes(api, 'k', ['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
    await assignCodes(api, 'i', ['a\n', 'b\n', 'c\n']);
    await assignCodes(api, 's', ['', 'x']);
    const c = new TupleCounter();
    for (let n = 0; n < 90; n++) {
      const [t, k, i, s, o] = [minute - (n % 3), n % 6, (n % 4) - 1, n % 2, n % 9];
      c.add(hourOf(minuteStart(t)), k, i, s, o);
      c.addMinute(t, k, i, s, o);
    }
    return c;
  }

  async function expectMinuteKeys(api: string) {
    const keys = apiKeys(space, api);
    for (let t = minute - 2; t <= minute; t++) {
      for (const cube of MINUTE_CUBES) {
        const name = keys.cube('n', t, cube);
        const expireAt = minuteStart(t + 1) + retention.minuteMs;
        expect([name, await db.redis.type(name), await db.redis.pexpiretime(name)]).toEqual([
          name,
          'hash',
          expireAt,
        ]);
      }
      expect(await db.redis.exists(`${keys.bucketPrefix('n', t)}:parts`)).toBe(0);
    }
    const dirty = await db.redis.zrange(keys.dirty, 0, -1);
    expect(dirty.length).toBeGreaterThan(0); // the hour's
    expect(dirty.filter((member) => member.startsWith('n:'))).toEqual([]);
    expect(await db.redis.exists(`${keys.base}:idx:n`)).toBe(0);
  }

  const reads = (slices: boolean): BucketRead[] =>
    [minute - 2, minute - 1, minute].map((index) => ({
      res: 'n',
      index,
      slice: slices ? minuteStart(index) : null,
    }));

  it('applyApiBatch writes the two hashes of each minute with their expiry, and nothing else', async () => {
    const api = 'minutes_whole';
    const inc = expand(await counterFor(api), { now, retention, cmp: null });
    expect(await applyApiBatches(db.redis, space, [{ apiId: api, increments: inc, cas }])).toEqual([
      { status: 'ok' },
    ]);
    await expectMinuteKeys(api);
  });

  it('applyStagedChunk writes a staged minute the same way', async () => {
    const api = 'minutes_staged';
    const inc = expand(await counterFor(api), { now, retention, cmp: null });
    const applied = await applyApiBatches(db.redis, space, [{ apiId: api, increments: inc, cas }], {
      maxWritesPerCall: 30,
    });
    expect(applied).toEqual([{ status: 'ok' }]);
    await expectMinuteKeys(api);
    const whole = apiKeys(space, 'minutes_whole');
    const staged = apiKeys(space, api);
    for (const cube of MINUTE_CUBES) {
      expect(await db.redis.hgetall(staged.cube('n', minute, cube))).toEqual(
        await db.redis.hgetall(whole.cube('n', minute, cube)),
      );
    }
  });

  /**
   * Two batches of 240 events over the last 3 minutes, all tuples distinct within a batch; `between` runs after the
   * first.
   */
  async function packedBatches(api: string, partsMinRows?: number, between?: () => Promise<void>) {
    const keys = Array.from({ length: 40 }, (_, k) => `k${k}`);
    await assignCodes(api, 'k', keys);
    await assignCodes(api, 'i', ['a\n', 'b\n', 'c\n']);
    await assignCodes(api, 's', ['', 'x']);
    for (const batch of [0, 1]) {
      const c = new TupleCounter();
      for (let n = 0; n < 240; n++) {
        const [t, k, i, s, o] = [minute - (n % 3), (n + batch) % 40, (n % 4) - 1, (n >> 1) % 2, n % 9];
        c.add(hourOf(minuteStart(t)), k, i, s, o);
        c.addMinute(t, k, i, s, o);
      }
      const inc = expand(c, { now, retention, cmp: null, ...(partsMinRows ? { partsMinRows } : {}) });
      const batchCas = { ...cas, expectedOff: batch === 0 ? null : 1, newOff: batch + 1 };
      const applied = await applyApiBatches(
        db.redis,
        space,
        [{ apiId: api, increments: inc, cas: batchCas }],
        {
          maxWritesPerCall: batch === 0 ? 1_000_000 : 30,
        },
      );
      expect(applied).toEqual([{ status: 'ok' }]);
      if (batch === 0) await between?.();
    }
  }

  it('a minute f packed by each batch (one HSET, once staged) reads as its fields would', async () => {
    await packedBatches('minutes_packed');
    await packedBatches('minutes_fields', Infinity);
    const packed = apiKeys(space, 'minutes_packed');
    const f = await db.redis.hgetall(packed.cube('n', minute, 'f'));
    expect(Object.keys(f).sort()).toEqual(['#0', '#1']);
    expect(await db.redis.pexpiretime(packed.cube('n', minute, 'f'))).toBe(
      minuteStart(minute + 1) + retention.minuteMs,
    );
    const fields = await db.redis.hgetall(apiKeys(space, 'minutes_fields').cube('n', minute, 'f'));
    expect(Object.keys(fields).length).toBeGreaterThan(16);
    const queries: Partial<CubeQuery>[] = [
      { cube: 'f', group: { key: true, identity: true, set: true } },
      { cube: 'f', identities: [1], group: { key: true, identity: false, set: false } },
      { cube: 'f', keys: [3, 7], sets: [1], group: { key: false, identity: true, set: false } },
    ];
    for (const over of queries) {
      const [a, b] = await Promise.all(
        ['minutes_packed', 'minutes_fields'].map((api) =>
          readCounts(db.redis, space, api, cubeQuery(over), reads(true), null),
        ),
      );
      expect(a).toEqual(b);
      if (!a!.ok) throw new Error('compaction moved');
      expect([...a!.counts.slices.values()].some((groups) => groups.size > 0)).toBe(true);
    }
  });

  it("a packed field's name taken already (a field deleted by hand) moves on to a free one, never overwrites", async () => {
    const key = apiKeys(space, 'minutes_renamed').cube('n', minute, 'f');
    // The first batch's "#0" renamed "#1": the hash's length (1) names a field that exists.
    await packedBatches('minutes_renamed', undefined, async () => {
      const value = await db.redis.hget(key, '#0');
      await db.redis.multi().hset(key, '#1', value!).hdel(key, '#0').exec();
    });
    await packedBatches('minutes_renamed_fields', Infinity);
    expect(Object.keys(await db.redis.hgetall(key)).sort()).toEqual(['#1', '#2']);
    const query = cubeQuery({ cube: 'f', group: { key: true, identity: true, set: true } });
    const [renamed, fields] = await Promise.all(
      ['minutes_renamed', 'minutes_renamed_fields'].map((api) =>
        readCounts(db.redis, space, api, query, reads(true), null),
      ),
    );
    expect(renamed).toEqual(fields);
  });

  it('readCounts reads each minute in its slice, with every filter and group through f', async () => {
    const api = 'minutes_whole';
    const read = async (over: Parameters<typeof cubeQuery>[0], slices = true) => {
      const result = await readCounts(db.redis, space, api, cubeQuery(over), reads(slices), null);
      if (!result.ok) throw new Error('compaction moved');
      return Object.fromEntries(
        [...result.counts.slices].map(([slice, groups]) => [String(slice), Object.fromEntries(groups)]),
      );
    };
    // 30 events a minute, outcome n % 9: per minute 3 or 4 of each outcome.
    const totals = await read({ cube: 't' });
    expect(Object.keys(totals)).toEqual([minute - 2, minute - 1, minute].map((t) => String(minuteStart(t))));
    for (const groups of Object.values(totals))
      expect(groups['..']!.reduce((a: number, b: number) => a + b, 0)).toBe(30);
    // Key 1 (events n % 6 == 1), grouped by identity through f: the identity is in the f fields.
    const byIdentity = await read(
      { cube: 'f', keys: [1], group: { key: false, identity: true, set: false } },
      false,
    );
    const sums = Object.fromEntries(
      Object.entries(byIdentity['null']!).map(([group, counts]) => [
        group,
        counts.reduce((a, b) => a + b, 0),
      ]),
    );
    // n % 6 == 1 and n % 4 - 1 = identity: n in 1, 7, 13, ... (15 events): identity codes 0 and 2 (n odd).
    expect(sums).toEqual({ '.0.': 8, '.2.': 7 });
    // An identity filter on f keeps that identity's fields only.
    const one = await read(
      { cube: 'f', identities: [2], group: { key: true, identity: false, set: false } },
      false,
    );
    expect(
      Object.values(one['null']!)
        .flat()
        .reduce((a, b) => a + b, 0),
    ).toBe(22);
    // A key filter and a tag-set group: keys 0 and 5 are the events n % 6 in 0, 5 (30), tag set n % 2.
    const keyed = await read(
      { cube: 'f', keys: [0, 5], group: { key: true, identity: false, set: true } },
      false,
    );
    const total = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
    expect(
      Object.fromEntries(Object.entries(keyed['null']!).map(([g, counts]) => [g, total(counts)])),
    ).toEqual({
      '0..0': 15,
      '5..1': 15,
    });
  });
});

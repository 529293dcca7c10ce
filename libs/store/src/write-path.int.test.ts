// The write-side Lua scripts against a real Redis: assignCodes, applyApiBatch, advanceWatermark,
// and the TypeScript around them (dictionary reader/writer, registration, cube dump).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOfHour, hourOf, hoursOfMonth, monthOfHour } from '@va/core';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { connectTarget, deletePrefix, fullKey, dumpApiCounts } from './testing';
import { expand, TupleCounter } from './aggregate';
import { registerApisFromEvents } from './api-registration';
import { applyApiBatches, drainStaged } from './apply';
import { applyApiBatch, applyApiBatchArgs } from './scripts/apply-scripts';
import { assignCodes as assignCodesScript } from './scripts/dictionary-scripts';
import { advanceWatermark } from './scripts/watermark-scripts';
import { copyApiGeneration } from './generation-copy';
import { DictionaryReader, DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys, globalKeys, type KeySpace } from './keys';
import { readApiProgress, readWatermark, readWatermarks } from './watermark';
import { type RedisClient } from '@va/store';

const DAY = 86_400_000;
const retention = { hourMs: 35 * DAY, dayMs: 400 * DAY, monthMs: 5 * 366 * DAY };

let t: TestEnv;
let redis: RedisClient;
let space: KeySpace;

beforeAll(async () => {
  t = await testEnv('store write path');
  redis = connectTarget(t.redis);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

const assignCodes = (api: string, d: 'k' | 'i' | 's', values: string[]) =>
  assignCodesScript(redis, space, api, d, values);

describe('assignCodes', () => {
  it('appends new values, keeps old codes, handles repeats within one call', async () => {
    expect(await assignCodes('a1', 'k', ['x', 'y', 'x'])).toEqual([0, 1, 0]);
    expect(await assignCodes('a1', 'k', ['z', 'y'])).toEqual([2, 1]);
    expect(await redis.lrange(apiKeys(space, 'a1').dict('k'), 0, -1)).toEqual(['x', 'y', 'z']);
    expect(await redis.hgetall(apiKeys(space, 'a1').dictIndex('k'))).toEqual({ x: '0', y: '1', z: '2' });
  });

  it('gives every concurrent writer the same code for the same value', async () => {
    const writers = Array.from({ length: 8 }, () => connectTarget(t.redis));
    const values = Array.from({ length: 300 }, (_, n) => `v${n}`);
    try {
      const results = await Promise.all(
        writers.map((client, w) => {
          // Each writer asks in its own order, in chunks, so the calls interleave.
          const mine = [...values].sort(() => (w % 2 === 0 ? 1 : -1)).slice(w * 10);
          const calls: Promise<[string, number][]>[] = [];
          for (let n = 0; n < mine.length; n += 25) {
            const chunk = mine.slice(n, n + 25);
            calls.push(
              assignCodesScript(client, space, 'conc', 'k', chunk).then((codes) =>
                chunk.map((v, m): [string, number] => [v, codes[m]!]),
              ),
            );
          }
          return Promise.all(calls).then((r) => r.flat());
        }),
      );
      const list = await redis.lrange(apiKeys(space, 'conc').dict('k'), 0, -1);
      expect(new Set(list).size).toBe(list.length);
      expect(list.length).toBe(values.length);
      for (const [value, code] of results.flat()) expect(list[code]).toBe(value);
    } finally {
      writers.forEach((c) => c.disconnect());
    }
  });
});

describe('DictionaryWriter and DictionaryReader', () => {
  it('assigns through the cache and reads back incrementally, beyond one LRANGE chunk', async () => {
    const writer = new DictionaryWriter(redis, space);
    const missing = new Map([['big', { ...emptyMissing(), s: new Set(['', 'a,b']) }]]);
    await writer.assign(missing);
    expect(writer.codesOf('big').s).toEqual(
      new Map([
        ['', 0],
        ['a,b', 1],
      ]),
    );

    const reader = new DictionaryReader(redis, space, 'big');
    await reader.load('s');
    expect(reader.all('s')).toEqual(['', 'a,b']);

    const many = Array.from({ length: 25_000 }, (_, n) => `key_${n}`);
    await writer.assign(new Map([['big', { ...emptyMissing(), k: new Set(many) }]]));
    // Assigned in calls of 300 values: the cache holds every one with its code.
    expect(writer.codesOf('big').k.get('key_24999')).toBe(24_999);
    expect(writer.codesOf('big').k.size).toBe(25_000);
    await reader.ensure('k', 24_999);
    expect(reader.size('k')).toBe(25_000);
    expect(reader.value('k', 24_999)).toBe('key_24999');
    expect(reader.code('k', 'key_7')).toBe(7);
    // Incremental: only the new tail is read.
    await writer.assign(new Map([['big', { ...emptyMissing(), k: new Set(['late']) }]]));
    await reader.ensure('k', 25_000);
    expect(reader.value('k', 25_000)).toBe('late');

    const fresh = new DictionaryReader(redis, space, 'big');
    expect(await fresh.lookupMany('k', ['key_3', 'nope', 'late'])).toEqual([3, undefined, 25_000]);
    expect(fresh.size('k')).toBe(0);
  });
});

describe('DictionaryReader after Redis lost entries', () => {
  it('notices codes given to other values and reads the dictionary again', async () => {
    await assignCodes('lossy', 'k', ['a', 'b', 'c']);
    const reader = new DictionaryReader(redis, space, 'lossy');
    await reader.load('k');
    expect(reader.all('k')).toEqual(['a', 'b', 'c']);
    // Redis "loses" b and c, then other values get codes 1 and 2 (and 3).
    const keys = apiKeys(space, 'lossy');
    await redis.del(keys.dict('k'), keys.dictIndex('k'));
    await assignCodes('lossy', 'k', ['a', 'x', 'y', 'z']);
    await reader.ensure('k', 3);
    expect(reader.all('k')).toEqual(['a', 'x', 'y', 'z']);
    expect(reader.code('k', 'b')).toBeUndefined();
    expect(reader.code('k', 'y')).toBe(2);
    expect(reader.resets).toBe(1);
  });
});

describe('applyApiBatch', () => {
  const now = Date.now();
  const h = hourOf(now);
  const field = 'topic/0';

  async function counterFor(api: string, n: number) {
    await assignCodes(api, 'k', ['key_a']);
    await assignCodes(api, 's', ['']);
    await assignCodes(api, 'i', ['id\next']);
    const c = new TupleCounter();
    c.add(h, 0, 0, 0, 0, n);
    c.add(h, 0, -1, 0, 3, 1);
    return c;
  }

  it('applies once, bucket index and parts, no expiry before compaction, then refuses the same batch (off CAS)', async () => {
    const api = 'ap1';
    const c = await counterFor(api, 5);
    const apply = (expectedOff: number | null, newOff: number) =>
      applyApiBatches(redis, space, [
        {
          apiId: api,
          increments: expand(c, { now, retention, cmp: null }),
          cas: { offsetField: field, expectedOff, newOff, expectedCmp: null },
        },
      ]);
    expect(await apply(null, 10)).toEqual([{ status: 'ok' }]);
    expect(await apply(null, 10)).toEqual([{ status: 'off', actual: 10 }]);
    const keys = apiKeys(space, api);
    expect(await redis.hgetall(keys.cube('h', h, 't'))).toEqual({ '0': '5', '3': '1' });
    expect(await redis.hgetall(keys.cube('h', h, 'f:0'))).toEqual({ '0.0:0': '5' });
    expect(await redis.hgetall(keys.cube('h', h, 'f:_'))).toEqual({ '0.0:3': '1' });
    expect((await redis.smembers(keys.parts('h', h))).sort()).toEqual([
      'f:0',
      'f:_',
      'i:0',
      'k:0',
      's:0',
      't',
    ]);
    expect(await redis.zrange(keys.bucketIndex('h'), 0, -1)).toEqual([String(h)]);
    // Not compacted yet (cmp -1): the hour waits for the compactor, which sets its expiry.
    expect(await redis.pexpiretime(keys.cube('h', h, 'k:0'))).toBe(-1);
    expect(await redis.pexpiretime(keys.parts('h', h))).toBe(-1);
    expect(await redis.hget(keys.offsets, field)).toBe('10');

    const dump = await dumpApiCounts(redis, space, api, 'h');
    expect(dump.sum.total).toEqual([5, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(dump.sum.byKey.get('key_a')).toEqual([5, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(dump.sum.byIdentity.get('id\next')).toEqual([5, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(dump.sum.full.get(fullKey('key_a', '', ''))).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('refuses a stale cmp and writes nothing', async () => {
    const api = 'ap2';
    const c = await counterFor(api, 2);
    await redis.set(apiKeys(space, api).compactedThrough, String(h - 1));
    const results = await applyApiBatches(redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 3, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'cmp', actual: h - 1 }]);
    expect(await redis.exists(apiKeys(space, api).cube('h', h, 't'))).toBe(0);
    expect(await redis.hget(apiKeys(space, api).offsets, field)).toBeNull();
  });

  it('writes a compacted hour to the hour and its rollups in one step', async () => {
    const api = 'ap3';
    const c = await counterFor(api, 4);
    await redis.set(apiKeys(space, api).compactedThrough, String(h));
    const results = await applyApiBatches(redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: h }),
        cas: { offsetField: field, expectedOff: null, newOff: 3, expectedCmp: h },
      },
    ]);
    expect(results).toEqual([{ status: 'ok' }]);
    for (const r of ['h', 'd', 'm'] as const) {
      expect((await dumpApiCounts(redis, space, api, r)).sum.total[0]).toBe(4);
    }
  });

  it('refuses codes a dictionary does not hold (Redis lost writes)', async () => {
    const api = 'ap4';
    await assignCodes(api, 'k', ['only']);
    const c = new TupleCounter();
    c.add(h, 3, -1, 0, 0); // key code 3 does not exist; tag-set code 0 neither
    const results = await applyApiBatches(redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 1, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'dict', dict: 'k', length: 1 }]);
    expect(await redis.exists(apiKeys(space, api).offsets)).toBe(0);
  });

  it('handles a large flat call (50k fields) in one script run', async () => {
    const api = 'ap5';
    const values = Array.from({ length: 10_000 }, (_, n) => `k${n}`);
    await assignCodes(api, 'k', values);
    await assignCodes(api, 's', ['']);
    const c = new TupleCounter();
    for (let k = 0; k < 10_000; k++) c.add(h, k, -1, 0, k % 9, 2);
    const results = await applyApiBatches(redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 99, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'ok' }]);
    const dump = await dumpApiCounts(redis, space, api, 'h');
    expect(dump.sum.byKey.size).toBe(10_000);
    expect(dump.sum.total.reduce((a, b) => a + b, 0)).toBe(20_000);
    expect(await redis.scard(apiKeys(space, api).parts('h', h))).toBe(1 + 313 + 1 + 1); // t, k:0..k:8o, s:0, f:_
  });

  it('reads progress of many APIs in one pipeline', async () => {
    const progress = await readApiProgress(redis, space, field, ['ap1', 'ap3', 'never']);
    expect(progress).toEqual({ off: [10, 3, null], cmp: [null, h, null] });
  });
});

describe('applyApiBatch with a bound on writes per call', () => {
  const now = Date.now();
  const h = hourOf(now);
  const cas = (newOff: number) => ({ offsetField: 'topic/0', expectedOff: null, newOff, expectedCmp: null });

  /** The same 300 tuples over two hours (by default the current and the last) for each API: 30 keys, 10 identities, 3 tag sets. */
  async function counterFor(api: string, hour = h) {
    await assignCodes(
      api,
      'k',
      Array.from({ length: 30 }, (_, n) => `key_${n}`),
    );
    await assignCodes(
      api,
      'i',
      Array.from({ length: 10 }, (_, n) => `id_${n}\n`),
    );
    await assignCodes(api, 's', ['', 'a', 'a,b']);
    const c = new TupleCounter();
    for (let n = 0; n < 300; n++) c.add(hour - (n % 2), n % 30, n % 10, n % 3, n % 9, 1 + (n % 4));
    return c;
  }
  const dump = async (api: string) => (await dumpApiCounts(redis, space, api, 'h')).sum;

  it('stages the fields beyond the bound with the offset and applies them in bounded calls right after', async () => {
    const [whole, bounded] = ['bound_whole', 'bound_chunked'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(bounded);
    expect(await applyApiBatches(redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }])).toEqual([
      { status: 'ok' },
    ]);
    const chunked = applyApiBatchArgs(space, bounded, inc, cas(5), 40);
    expect(chunked.staged).toBeGreaterThan(5);
    expect(
      await applyApiBatches(redis, space, [{ apiId: bounded, increments: inc, cas: cas(5) }], {
        maxWritesPerCall: 40,
      }),
    ).toEqual([{ status: 'ok' }]);
    expect(await redis.exists(apiKeys(space, bounded).stage)).toBe(0);
    expect(await dump(bounded)).toEqual(await dump(whole));
    expect(await redis.hget(apiKeys(space, bounded).offsets, 'topic/0')).toBe('5');
  });

  it('stages the section parts of closed hours too, in calls bounded by their size', async () => {
    // Hours of two days ago: written as section parts (aggregate.ts closedForParts), a few per cube.
    const [whole, bounded] = ['parts_whole', 'parts_chunked'];
    const closed = h - 48;
    const inc = expand(await counterFor(whole, closed), { now, retention, cmp: null, partsMinRows: 4 });
    await counterFor(bounded, closed);
    const parts = inc.buckets.flatMap((b) => [...b.parts.values()]);
    expect(parts.length).toBeGreaterThan(4);
    await applyApiBatches(redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    const maxWritesPerCall = 12;
    const call = applyApiBatchArgs(space, bounded, inc, cas(5), maxWritesPerCall);
    // Every hour bucket is staged: the call itself appends no part.
    expect(call.args.filter((arg) => Buffer.isBuffer(arg) && parts.includes(arg))).toEqual([]);
    expect(call.staged).toBeGreaterThan(parts.length / 2);
    expect(
      await applyApiBatches(redis, space, [{ apiId: bounded, increments: inc, cas: cas(5) }], {
        maxWritesPerCall,
      }),
    ).toEqual([{ status: 'ok' }]);
    expect(await redis.exists(apiKeys(space, bounded).stage)).toBe(0);
    const lists = async (api: string) => {
      const keys = apiKeys(space, api);
      const out: Record<string, number> = {};
      for (const t of [closed, closed - 1]) {
        for (const suffix of await redis.smembers(keys.parts('h', t))) {
          out[`${t} ${suffix}`] = suffix.startsWith('L:') ? await redis.llen(keys.cube('h', t, suffix)) : -1;
        }
      }
      return out;
    };
    // The same parts lists, each part once, and the same counts.
    expect(await lists(bounded)).toEqual(await lists(whole));
    expect(Object.keys(await lists(bounded)).some((k) => k.includes(' L:'))).toBe(true);
    expect(await dump(bounded)).toEqual(await dump(whole));
  });

  it('applies every chunk once when two writers of one API (two partitions) stage at the same time', async () => {
    const api = 'bound_two_writers';
    const inc = expand(await counterFor(api), { now, retention, cmp: null });
    const other = connectTarget(t.redis);
    const field = (partition: number) => ({ ...cas(5), offsetField: `topic/${partition}` });
    const results = await Promise.all([
      applyApiBatches(redis, space, [{ apiId: api, increments: inc, cas: field(0) }], {
        maxWritesPerCall: 20,
      }),
      applyApiBatches(other, space, [{ apiId: api, increments: inc, cas: field(1) }], {
        maxWritesPerCall: 20,
      }),
    ]);
    other.disconnect();
    expect(results).toEqual([[{ status: 'ok' }], [{ status: 'ok' }]]);
    expect(await redis.exists(apiKeys(space, api).stage)).toBe(0);
    const total = (await dump(api)).total.reduce((a, b) => a + b, 0);
    expect(total).toBe(2 * inc.events);
  });

  it('leaves the staged chunks of a writer that died after its call to whoever drains them, each once', async () => {
    const [whole, crashed] = ['crash_whole', 'crash_staged'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(crashed);
    await applyApiBatches(redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    // The call alone (the writer dies before applying the chunks): the offset moved, the chunks wait.
    const call = await applyApiBatch(redis, space, crashed, inc, cas(5), 40);
    expect(call.result).toEqual({ status: 'ok' });
    const keys = apiKeys(space, crashed);
    expect(await redis.hget(keys.offsets, 'topic/0')).toBe('5');
    expect(await redis.llen(keys.stage)).toBe(call.staged);
    expect(await dump(crashed)).not.toEqual(await dump(whole));
    // Two drainers at once (a writer and the compactor): every chunk is applied once.
    const other = connectTarget(t.redis);
    const drained = await Promise.all([
      drainStaged(redis, space, [crashed, whole]),
      drainStaged(other, space, [crashed]),
    ]);
    other.disconnect();
    expect(drained[0] + drained[1]).toBeGreaterThanOrEqual(call.staged);
    expect(await redis.exists(keys.stage)).toBe(0);
    expect(await dump(crashed)).toEqual(await dump(whole));
  });
  it("applies a stage left behind before a rebuild's copy carries the API over", async () => {
    const [whole, crashed] = ['copy_whole', 'copy_staged'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(crashed);
    await applyApiBatches(redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    expect((await applyApiBatch(redis, space, crashed, inc, cas(5), 40)).result).toEqual({ status: 'ok' });
    // Carry everything before next month into generation 7, as `rebuild --since` does.
    const month = monthOfHour(h) + 1;
    const boundary = { hour: hoursOfMonth(month)[0], day: dayOfHour(hoursOfMonth(month)[0]), month };
    const target = { prefix: space.prefix, generation: 7 };
    expect(await copyApiGeneration(redis, space, target, crashed, boundary)).toMatchObject({
      status: 'copied',
    });
    expect(await redis.exists(apiKeys(space, crashed).stage)).toBe(0);
    expect((await dumpApiCounts(redis, target, crashed, 'h')).sum).toEqual(await dump(whole));
  });
});

describe('advanceWatermark', () => {
  it('moves only from the expected value', async () => {
    expect(await readWatermark(redis, space, 'wmt', 0)).toBeNull();
    expect(await advanceWatermark(redis, space, 'wmt', 0, null, 99)).toEqual({ ok: true });
    expect(await advanceWatermark(redis, space, 'wmt', 0, null, 150)).toEqual({ ok: false, actual: 99 });
    expect(await advanceWatermark(redis, space, 'wmt', 0, 99, 150)).toEqual({ ok: true });
    expect(await readWatermark(redis, space, 'wmt', 0)).toBe(150);
    expect(await readWatermark(redis, space, 'wmt', 1)).toBeNull();
    expect(
      await readWatermarks(redis, space, [
        { topic: 'wmt', partition: 0 },
        { topic: 'wmt', partition: 1 },
      ]),
    ).toEqual([150, null]);
  });
});

describe('registerApisFromEvents', () => {
  it('keeps the first workspace and lists the API', async () => {
    expect(
      await registerApisFromEvents(redis, t.keyPrefix, [
        { apiId: 'r1', workspaceId: 'ws_a' },
        { apiId: 'r2', workspaceId: 'ws_b' },
      ]),
    ).toEqual(['ws_a', 'ws_b']);
    expect(await registerApisFromEvents(redis, t.keyPrefix, [{ apiId: 'r1', workspaceId: 'ws_c' }])).toEqual([
      'ws_a',
    ]);
    expect((await redis.smembers(globalKeys(t.keyPrefix).apis)).sort()).toEqual(['r1', 'r2']);
    expect(await redis.get(globalKeys(t.keyPrefix).api('r1'))).toBe('ws_a');
  });
});

// The write-side Lua scripts against a real Redis: applyApiBatch (its CAS on off, cmp and dictionary
// lengths), advanceWatermark and the reads of progress, and API registration.
import { describe, expect, it } from 'vitest';
import { hourOf } from '@va/core';
import { fullKey, dumpApiCounts } from './testing';
import { expand, TupleCounter } from './aggregate';
import { registerApisFromEvents } from './api-registration';
import { applyApiBatches } from './apply';
import { advanceWatermark } from './scripts/watermark-scripts';
import { apiKeys, globalKeys } from './keys';
import { readApiProgress, readWatermark, readWatermarks } from './watermark';
import { fileRedis } from './testing/file-redis';
import { TEST_RETENTION as retention } from './testing/ingest-events';

const db = fileRedis('store-write-path');
const { space, assignCodes } = db;

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
      applyApiBatches(db.redis, space, [
        {
          apiId: api,
          increments: expand(c, { now, retention, cmp: null }),
          cas: { offsetField: field, expectedOff, newOff, expectedCmp: null },
        },
      ]);
    expect(await apply(null, 10)).toEqual([{ status: 'ok' }]);
    expect(await apply(null, 10)).toEqual([{ status: 'off', actual: 10 }]);
    const keys = apiKeys(space, api);
    expect(await db.redis.hgetall(keys.cube('h', h, 't'))).toEqual({ '0': '5', '3': '1' });
    expect(await db.redis.hgetall(keys.cube('h', h, 'f:0'))).toEqual({ '0.0:0': '5' });
    expect(await db.redis.hgetall(keys.cube('h', h, 'f:_'))).toEqual({ '0.0:3': '1' });
    expect((await db.redis.smembers(keys.parts('h', h))).sort()).toEqual([
      'f:0',
      'f:_',
      'i:0',
      'k:0',
      's:0',
      't',
    ]);
    expect(await db.redis.zrange(keys.bucketIndex('h'), 0, -1)).toEqual([String(h)]);
    // Not compacted yet (cmp -1): the hour waits for the compactor, which sets its expiry.
    expect(await db.redis.pexpiretime(keys.cube('h', h, 'k:0'))).toBe(-1);
    expect(await db.redis.pexpiretime(keys.parts('h', h))).toBe(-1);
    expect(await db.redis.hget(keys.offsets, field)).toBe('10');

    const dump = await dumpApiCounts(db.redis, space, api, 'h');
    expect(dump.sum.total).toEqual([5, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(dump.sum.byKey.get('key_a')).toEqual([5, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(dump.sum.byIdentity.get('id\next')).toEqual([5, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(dump.sum.full.get(fullKey('key_a', '', ''))).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('refuses a stale cmp and writes nothing', async () => {
    const api = 'ap2';
    const c = await counterFor(api, 2);
    await db.redis.set(apiKeys(space, api).compactedThrough, String(h - 1));
    const results = await applyApiBatches(db.redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 3, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'cmp', actual: h - 1 }]);
    expect(await db.redis.exists(apiKeys(space, api).cube('h', h, 't'))).toBe(0);
    expect(await db.redis.hget(apiKeys(space, api).offsets, field)).toBeNull();
  });

  it('writes a compacted hour to the hour and its rollups in one step', async () => {
    const api = 'ap3';
    const c = await counterFor(api, 4);
    await db.redis.set(apiKeys(space, api).compactedThrough, String(h));
    const results = await applyApiBatches(db.redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: h }),
        cas: { offsetField: field, expectedOff: null, newOff: 3, expectedCmp: h },
      },
    ]);
    expect(results).toEqual([{ status: 'ok' }]);
    for (const r of ['h', 'd', 'm'] as const) {
      expect((await dumpApiCounts(db.redis, space, api, r)).sum.total[0]).toBe(4);
    }
  });

  it('refuses codes a dictionary does not hold (Redis lost writes)', async () => {
    const api = 'ap4';
    await assignCodes(api, 'k', ['only']);
    const c = new TupleCounter();
    c.add(h, 3, -1, 0, 0); // key code 3 does not exist; tag-set code 0 neither
    const results = await applyApiBatches(db.redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 1, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'dict', dict: 'k', length: 1 }]);
    expect(await db.redis.exists(apiKeys(space, api).offsets)).toBe(0);
  });

  it('handles a large flat call (50k fields) in one script run', async () => {
    const api = 'ap5';
    const values = Array.from({ length: 10_000 }, (_, n) => `k${n}`);
    await assignCodes(api, 'k', values);
    await assignCodes(api, 's', ['']);
    const c = new TupleCounter();
    for (let k = 0; k < 10_000; k++) c.add(h, k, -1, 0, k % 9, 2);
    const results = await applyApiBatches(db.redis, space, [
      {
        apiId: api,
        increments: expand(c, { now, retention, cmp: null }),
        cas: { offsetField: field, expectedOff: null, newOff: 99, expectedCmp: null },
      },
    ]);
    expect(results).toEqual([{ status: 'ok' }]);
    const dump = await dumpApiCounts(db.redis, space, api, 'h');
    expect(dump.sum.byKey.size).toBe(10_000);
    expect(dump.sum.total.reduce((a, b) => a + b, 0)).toBe(20_000);
    expect(await db.redis.scard(apiKeys(space, api).parts('h', h))).toBe(1 + 313 + 1 + 1); // t, k:0..k:8o, s:0, f:_
  });

  it('reads progress of many APIs in one pipeline', async () => {
    const progress = await readApiProgress(db.redis, space, field, ['ap1', 'ap3', 'never']);
    expect(progress).toEqual({ off: [10, 3, null], cmp: [null, h, null] });
  });
});

describe('advanceWatermark', () => {
  it('moves only from the expected value', async () => {
    expect(await readWatermark(db.redis, space, 'wmt', 0)).toBeNull();
    expect(await advanceWatermark(db.redis, space, 'wmt', 0, null, 99)).toEqual({ ok: true });
    expect(await advanceWatermark(db.redis, space, 'wmt', 0, null, 150)).toEqual({ ok: false, actual: 99 });
    expect(await advanceWatermark(db.redis, space, 'wmt', 0, 99, 150)).toEqual({ ok: true });
    expect(await readWatermark(db.redis, space, 'wmt', 0)).toBe(150);
    expect(await readWatermark(db.redis, space, 'wmt', 1)).toBeNull();
    expect(
      await readWatermarks(db.redis, space, [
        { topic: 'wmt', partition: 0 },
        { topic: 'wmt', partition: 1 },
      ]),
    ).toEqual([150, null]);
  });
});

describe('registerApisFromEvents', () => {
  it('keeps the first workspace and lists the API', async () => {
    expect(
      await registerApisFromEvents(db.redis, db.prefix, [
        { apiId: 'r1', workspaceId: 'ws_a' },
        { apiId: 'r2', workspaceId: 'ws_b' },
      ]),
    ).toEqual(['ws_a', 'ws_b']);
    expect(await registerApisFromEvents(db.redis, db.prefix, [{ apiId: 'r1', workspaceId: 'ws_c' }])).toEqual(
      ['ws_a'],
    );
    expect((await db.redis.smembers(globalKeys(db.prefix).apis)).sort()).toEqual(['r1', 'r2']);
    expect(await db.redis.get(globalKeys(db.prefix).api('r1'))).toBe('ws_a');
  });
});

// Issue #17.6: an API's dictionaries, its per-partition offsets (`off`) and its compaction point
// (`cmp`) must not outlive its counters forever. Each gets an expiry: the latest expiry of any
// bucket its events were written to (month end + month retention of the newest hour), moved
// forward by every later batch and kept by compaction.
import { describe, expect, it } from 'vitest';
import { DAY_MS, hourOf, monthOfHour, monthStart, type Retention } from '@va/core';
import { TupleCounter } from './aggregate';
import { applyCounted } from './testing/apply';
import { compactApi } from './compaction';
import { DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys } from './keys';
import { fileRedis } from './testing/file-redis';

const retention: Retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
const API = 'api_expiry';

const db = fileRedis('expiry');
const { space } = db;

async function write(hours: number[], now: number, offset: number, api = API): Promise<void> {
  const dicts = new DictionaryWriter(db.redis, space);
  const missing = emptyMissing();
  missing.k.add('key_1');
  missing.s.add('a');
  missing.i.add('id\next');
  await dicts.assign(new Map([[api, missing]]));
  const codes = dicts.codesOf(api);
  const counter = new TupleCounter();
  for (const h of hours) counter.add(h, codes.k.get('key_1')!, codes.i.get('id\next')!, codes.s.get('a')!, 0);
  expect(await applyCounted(db.redis, space, api, counter, { now, retention, offset })).toEqual({
    status: 'ok',
  });
}

describe('per-API keys expire after the longest retention since the last event', () => {
  it('dictionaries, off and cmp expire when the last bucket of the newest event would', async () => {
    const now = Date.now();
    const keys = apiKeys(space, API);
    const perApi = [
      keys.dict('k'),
      keys.dictIndex('k'),
      keys.dict('i'),
      keys.dictIndex('i'),
      keys.dict('s'),
      keys.dictIndex('s'),
      keys.offsets,
    ];
    const keptUntil = (h: number) => monthStart(monthOfHour(h) + 1) + retention.monthMs;

    const old = hourOf(now) - 24 * 60; // 60 days ago
    await write([old], now, 0);
    for (const key of perApi) expect([key, await db.redis.pexpiretime(key)]).toEqual([key, keptUntil(old)]);

    // A newer event moves every expiry forward; an older one never moves it back.
    const recent = hourOf(now) - 1;
    await write([recent], now, 1);
    await write([old - 24 * 100], now, 2);
    for (const key of perApi)
      expect([key, await db.redis.pexpiretime(key)]).toEqual([key, keptUntil(recent)]);

    // Compaction moves cmp and keeps (or, for a new cmp, sets) its expiry.
    await compactApi(db.redis, space, API, { closedBound: hourOf(now) - 1, retention, now });
    expect(await db.redis.pexpiretime(keys.compactedThrough)).toBe(keptUntil(recent));
  });

  it("moves an existing cmp's expiry with a newer event, and makes no cmp where there is none", async () => {
    // applyApiBatch looks at cmp's expiry only when cmp exists (its GET found one): a call that skipped it
    // always would leave the compactor's expiry (the month of the hour it compacted) behind the newer event.
    const api = 'api_expiry_cmp';
    const keys = apiKeys(space, api);
    const now = Date.now();
    const keptUntil = (h: number) => monthStart(monthOfHour(h) + 1) + retention.monthMs;
    const old = hourOf(now) - 24 * 60;
    await write([old], now, 0, api);
    expect(await db.redis.pexpiretime(keys.compactedThrough)).toBe(-2);
    await compactApi(db.redis, space, api, { closedBound: old + 1, retention, now });
    expect(await db.redis.pexpiretime(keys.compactedThrough)).toBe(keptUntil(old));
    const recent = hourOf(now) - 1;
    await write([recent], now, 1, api);
    expect(await db.redis.pexpiretime(keys.compactedThrough)).toBe(keptUntil(recent));
  });
});

// Issue #17.6: the query service keeps dictionaries in memory for every API it answered. The
// cache is bounded by the number of dictionary entries it holds (QUERY_DICTIONARY_CACHE_ENTRIES),
// the least recently used APIs going first, so that many APIs or a few huge ones cannot grow it
// without limit.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DictionaryWriter, emptyMissing, type KeySpace } from '@va/store';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';
import { DictionaryCache } from './dictionary-cache';

let t: TestEnv;
let redis: Redis;
let space: KeySpace;

beforeAll(async () => {
  t = await testEnv('dictionary cache');
  redis = new Redis(t.redisUrl);
  space = { prefix: t.keyPrefix, generation: 1 };
  const writer = new DictionaryWriter(redis, space);
  for (let a = 0; a < 20; a++) {
    const missing = emptyMissing();
    for (let k = 0; k < 10; k++) missing.k.add(`key_${k}`);
    await writer.assign(new Map([[`api_${a}`, missing]]));
  }
});
afterAll(async () => {
  await deletePrefix(t.redisUrl, t.keyPrefix);
  redis.disconnect();
});

describe('DictionaryCache', () => {
  it('holds at most its entry bound (plus the API in use), dropping the least recently used', async () => {
    const cache = new DictionaryCache(redis, { maxEntries: 35 });
    for (let a = 0; a < 20; a++) {
      const dicts = cache.get(space, `api_${a}`);
      await dicts.load(['k']);
      expect(dicts.keyCodes(['key_9'])).toEqual([9]);
      expect(cache.entries).toBeLessThanOrEqual(35 + 10);
    }
    expect(cache.apis).toBeLessThanOrEqual(4);
    // The most recent API is still cached (same object), an early one was loaded again.
    expect(cache.get(space, 'api_19')).toBe(cache.get(space, 'api_19'));
    const again = cache.get(space, 'api_0');
    expect(again.size('k')).toBe(0);
  });
});

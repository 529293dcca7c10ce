// The tests' Redis helpers (redis.ts): deletePrefix removes a test's keys and nothing of another test whose
// prefix merely starts the same, glob characters in key names included.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { testEnv } from '@va/testkit/support';
import { deletePrefix, keysMatching } from './redis';

describe('deletePrefix', () => {
  it('cleans a key prefix and nothing else', async () => {
    const env = await testEnv('redis smoke');
    const redis = new Redis(env.redisUrl);
    try {
      await redis.set(`${env.keyPrefix}:a`, '1');
      await redis.hset(`${env.keyPrefix}:{api}:b`, 'f', '2');
      await redis.set(`${env.keyPrefix}x:other-test`, '3');
      expect(await keysMatching(redis, `${env.keyPrefix}*`)).toHaveLength(3);
      expect(await deletePrefix(env.redisUrl, `${env.keyPrefix}:`)).toBe(2);
      expect(await redis.exists(`${env.keyPrefix}x:other-test`)).toBe(1);
      expect(await deletePrefix(env.redisUrl, env.keyPrefix)).toBe(1);
      await expect(deletePrefix(env.redisUrl, '')).rejects.toThrow(/empty prefix/);
    } finally {
      redis.disconnect();
    }
  });
});

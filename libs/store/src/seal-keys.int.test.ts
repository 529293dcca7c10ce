// What a seal and a compaction leave of a bucket's keys (#41: commitSeal deletes in one UNLINK of slices,
// writes a section with its expiry in one SET; compactNextHour sets no expiry on keys it read as absent):
// an hour with 600 delta hashes (more than one slice) sealed, then compacted; nothing of the seal is left,
// the sections have the expiry of their bucket (none before compaction), no key is created by an expiry,
// and every count is in the hour, its day and its month.
import { describe, expect, it } from 'vitest';
import { dayOfHour, expiresAt, hourOf, monthOfHour } from '@va/core';
import { compactApi } from './compaction';
import { isCluster } from './connection';
import { apiKeys, type Resolution } from './keys';
import { sealApi, sealBucket } from './seal';
import { dumpApiCounts } from './testing';
import { fileRedis } from './testing/file-redis';
import { Ingest, TEST_RETENTION as retention } from './testing/ingest-events';

const db = fileRedis('seal-keys');
const { space } = db;
const now = Date.now();
const hour = hourOf(now) - 5;
const IDENTITIES = 600;

/** KEYS on every master of a cluster (one node answers only for its own slots), else on the server. */
const keysMatching = async (pattern: string): Promise<string[]> => {
  const redis = db.redis;
  if (!isCluster(redis)) return redis.keys(pattern);
  return (await Promise.all(redis.nodes('master').map((node) => node.keys(pattern)))).flat();
};

const totalOf = async (r: Resolution): Promise<number> => {
  const { sum } = await dumpApiCounts(db.redis, space, 'wide', r);
  return sum.total.reduce((a, n) => a + n, 0);
};

describe('a seal and a compaction, key by key', () => {
  it('leaves only sections with their bucket expiry, in one hour with 600 delta hashes', async () => {
    const ingest = new Ingest(db.redis, space, retention, 'wide', now);
    // One identity per batch: each write is one row, so the hour's f cube stays in delta hashes.
    for (let n = 0; n < IDENTITIES; n++)
      await ingest.write([{ hour, key: `key_${n % 7}`, identity: `id_${n}`, outcome: n % 3 }]);
    const keys = apiKeys(space, 'wide');
    const parts = await db.redis.smembers(keys.parts('h', hour));
    expect(parts.length).toBeGreaterThan(512);

    const sealed = await sealBucket(db.redis, space, 'wide', 'h', hour, { now, retention });
    expect(sealed?.hashes).toBe(parts.length);
    const root = keys.bucketPrefix('h', hour);
    const left = async () => (await keysMatching(`${root}:*`)).map((k) => k.slice(root.length + 1)).sort();
    // Not compacted yet: sections without expiry, nothing of the seal or the delta left.
    expect(await left()).toEqual(['S:f', 'S:i', 'S:k', 'S:s', 'S:t']);
    for (const cube of ['t', 'k', 'i', 's', 'f'])
      expect(await db.redis.pttl(keys.section('h', hour, cube))).toBe(-1);
    expect(await totalOf('h')).toBe(IDENTITIES);

    const result = await compactApi(db.redis, space, 'wide', { closedBound: hour, retention, now });
    expect(result.hoursCompacted).toBe(1);
    expect(await left()).toEqual(['S:f', 'S:i', 'S:k', 'S:s', 'S:t']);
    const hourExpire = expiresAt('h', hour, retention);
    for (const cube of ['t', 'k', 'i', 's', 'f'])
      expect(await db.redis.pexpiretime(keys.section('h', hour, cube))).toBe(hourExpire);
    // The day and month: sealed like the compactor does after compacting.
    await sealApi(db.redis, space, 'wide', hour, { now, retention });
    const day = dayOfHour(hour);
    for (const cube of ['t', 'k', 'i', 's', 'f', 'x'])
      expect(await db.redis.pexpiretime(keys.section('d', day, cube))).toBe(expiresAt('d', day, retention));
    const month = monthOfHour(hour);
    expect(await db.redis.pexpiretime(keys.section('m', month, 't'))).toBe(expiresAt('m', month, retention));
    for (const r of ['h', 'd', 'm'] as const) expect(await totalOf(r)).toBe(IDENTITIES);
  });
});

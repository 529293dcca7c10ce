// The local Redis Cluster of the tests (infra/redis-cluster.mjs through @va/testkit/support startTestCluster)
// and the store's cluster plumbing (connection.ts, pipeline.ts, and connectTarget, keysMatching here): pipelines over many slots come back in order,
// a scan sees every master, a SIGKILLed master is replaced by its replica without losing what was
// replicated, and stop() leaves no process, port or file behind.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '@va/infra/paths';
import { portOpen } from '@va/testkit';
import { startTestCluster, testRedisTarget, type TestCluster } from '@va/testkit/support';
import { isCluster, masterNodes, type RedisClient } from '../connection';
import { execPipeline, newPipeline } from '../pipeline';
import { advanceWatermark } from '../scripts/watermark-scripts';
import { connectTarget, keysMatching } from './redis';

const prefix = `t-cluster-${process.pid}`;
const keyOf = (n: number) => `${prefix}:{api_${n}}:n`;

describe('the cluster project', () => {
  it('points the tests at a Redis Cluster', () => {
    const target = testRedisTarget();
    expect(target.redisClusterNodes).toHaveLength(6);
    const redis = connectTarget(target);
    expect(isCluster(redis)).toBe(true);
    redis.disconnect();
  });
});

describe('a private test cluster', () => {
  let cluster: TestCluster;
  let redis: RedisClient;

  beforeAll(async () => {
    cluster = await startTestCluster();
    redis = connectTarget(cluster.target);
  });
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  it('has 3 masters, runs pipelines over many slots in order, and scans every master', async () => {
    await redis.ping();
    expect(masterNodes(redis)).toHaveLength(3);
    const write = newPipeline(redis);
    for (let n = 0; n < 200; n++) write.set(keyOf(n), String(n));
    await execPipeline(write);
    const read = newPipeline(redis);
    for (let n = 0; n < 200; n++) read.get(keyOf(n));
    expect(await execPipeline(read)).toEqual(Array.from({ length: 200 }, (_, n) => String(n)));
    const owners = new Set(await Promise.all([0, 1, 2, 3, 4, 5].map((n) => cluster.masterOf(keyOf(n)))));
    expect(owners.size).toBeGreaterThan(1);
    expect(await keysMatching(redis, `${prefix}:*`)).toHaveLength(200);
  });

  it('fails a SIGKILLed master over to its replica and keeps what was replicated, Lua commands too', async () => {
    const key = keyOf(7);
    // The watermark of a key space whose prefix holds the hash tag {api_7}: same slot as key.
    const space = { prefix: `${prefix}:{api_7}`, generation: 1 };
    const advance = (expected: number, next: number) =>
      advanceWatermark(redis, space, 'live', 0, expected, next);
    await redis.set(key, 'before the crash');
    expect(await advance(-1, 41)).toEqual({ ok: true });
    // Replication is asynchronous: wait until the replica has it (WAIT runs on the key's master).
    const master = cluster.masterOf(key);
    const port = await master;
    const node = masterNodes(redis).find((n) => n.options.port === port)!;
    expect(await node.call('WAIT', 1, 5_000)).toBe(1);
    const promoted = await cluster.killMaster(port);
    expect(promoted).not.toBe(port);
    expect(await cluster.masterOf(key)).toBe(promoted);
    expect(await redis.get(key)).toBe('before the crash');
    // The promoted replica has no script cache: EVALSHA answers NOSCRIPT and ioredis sends the script again.
    expect(await advance(41, 42)).toEqual({ ok: true });
    await redis.set(key, 'after the failover');
    expect(await redis.get(key)).toBe('after the failover');
    await cluster.restartNode(port);
    expect(await cluster.masterOf(key)).toBe(promoted);
  });

  it('sends a pipeline over many slots again where a failover moved them (a client that slept through it)', async () => {
    const idle = connectTarget(cluster.target);
    idle.on('error', () => undefined);
    await idle.ping(); // its slot map is fixed here
    const port = await cluster.masterOf(keyOf(3));
    await cluster.killMaster(port);
    await cluster.restartNode(port); // back as a replica: it answers MOVED for the slots it served
    const write = newPipeline(idle);
    for (let n = 0; n < 200; n++) write.incrby(`${keyOf(n)}:moved`, n);
    expect(await execPipeline(write)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    const read = newPipeline(redis);
    for (let n = 0; n < 200; n++) read.get(`${keyOf(n)}:moved`);
    expect(await execPipeline(read)).toEqual(Array.from({ length: 200 }, (_, n) => String(n)));
    idle.disconnect();
  });

  it('stops with nothing left behind', async () => {
    redis.disconnect();
    await cluster.stop();
    for (const port of cluster.ports) {
      expect(await portOpen('127.0.0.1', port, 200)).toBe(false);
      expect(await portOpen('127.0.0.1', port + 10_000, 200)).toBe(false);
    }
    const dirs = fs.existsSync(path.join(CACHE_DIR, 'test-clusters'))
      ? fs.readdirSync(path.join(CACHE_DIR, 'test-clusters'))
      : [];
    expect(dirs.filter((d) => d.startsWith(`${cluster.ports[0]}-`))).toEqual([]);
  });
});

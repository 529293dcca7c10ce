// execPipeline's replica wait (pipeline.ts, ReplicaWait) against real servers: on the single test Redis
// (no replicas) and, in the `cluster` project, on the Redis Cluster (one replica per master). Writes over
// many slots reach the replicas of every master they touched, or ReplicaAckError says they did not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { deletePrefix, connectTarget } from './testing';
import { masterNodes, type RedisClient } from './connection';
import { execPipeline, newPipeline, ReplicaAckError } from './pipeline';

let t: TestEnv;
let redis: RedisClient;

beforeAll(async () => {
  t = await testEnv('store replica wait');
  redis = connectTarget(t.redis);
  await redis.ping();
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

/** Replicas attached to each master (INFO replication). */
async function replicasPerMaster(): Promise<number[]> {
  return Promise.all(
    masterNodes(redis).map(async (node) => {
      const info = await node.info('replication');
      return Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
    }),
  );
}

const writes = () => {
  const pipeline = newPipeline(redis);
  for (let n = 0; n < 50; n++) pipeline.incrby(`${t.keyPrefix}:{api_${n}}:n`, n);
  return pipeline;
};

it('returns the replies once every master it wrote to has that many replicas holding the writes', async () => {
  const least = Math.min(...(await replicasPerMaster()));
  const replies = await execPipeline(writes(), { replicas: least, timeoutMs: 2_000 });
  expect(replies).toEqual(Array.from({ length: 50 }, (_, n) => n));
  // The writes stand on the masters either way; asking for more replicas than exist fails, in time.
  const started = Date.now();
  const more = { replicas: least + 1, timeoutMs: 300 };
  await expect(execPipeline(writes(), more)).rejects.toThrow(ReplicaAckError);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(await redis.get(`${t.keyPrefix}:{api_7}:n`)).toBe('14');
});

it('waits for nothing with replicas 0 or without a wait', async () => {
  await expect(execPipeline(writes(), { replicas: 0, timeoutMs: 1 })).resolves.toHaveLength(50);
  await expect(execPipeline(writes())).resolves.toHaveLength(50);
});

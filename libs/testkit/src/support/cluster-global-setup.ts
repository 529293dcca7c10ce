// Global setup of the `cluster` project (vitest.config.ts): one private Redis Cluster for the run (3 masters
// + 3 replicas, AOF on; libs/testkit/src/support/redis-cluster.ts), provided as inject('redisClusterNodes').
// testEnv() then points every test and service child process at it (REDIS_CLUSTER_NODES) instead of the
// single test Redis; Kafka still comes from global-setup.ts. Stopped and deleted when the run ends.
import type { TestProject } from 'vitest/node';
import { startTestCluster } from './redis-cluster.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const cluster = await startTestCluster();
  process.stderr.write(
    `[test-servers] redis cluster ${cluster.nodes.join(',')}; ready in ${Date.now() - started} ms\n`,
  );
  project.provide('redisClusterNodes', cluster.nodes.join(','));
  return () => cluster.stop();
}

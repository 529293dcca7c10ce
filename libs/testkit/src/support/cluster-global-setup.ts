// Global setup of the `cluster` project (vitest.config.ts): one private Redis Cluster for the run (3 masters
// + 3 replicas, AOF on; libs/testkit/src/support/redis-cluster.ts), provided as inject('redisClusterNodes').
// testEnv() then points every test and service child process at it (REDIS_CLUSTER_NODES) instead of the
// single test Redis; Kafka still comes from global-setup.ts. Stopped and deleted when the run ends.
// The cluster starts in the background: its addresses are provided at once, and the project's files wait
// until it serves (cluster-status.ts, cluster-setup-file.ts). Awaited here, its ~7 s start held back every
// test of the run, the unit tests too (vitest runs every project's global setup before the first file).
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { CACHE_DIR } from '@va/infra/paths';
import { writeClusterStatus } from './cluster-status.js';
import { reserveTestCluster } from './redis-cluster.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const began = Date.now();
  const { nodes, started } = await reserveTestCluster();
  const statusFile = path.join(CACHE_DIR, 'test-clusters', `status-${process.pid}-${began}.json`);
  fs.mkdirSync(path.dirname(statusFile), { recursive: true });
  writeClusterStatus(statusFile, { state: 'starting' });
  const cluster = started.then(
    (c) => {
      process.stderr.write(
        `[test-servers] redis cluster ${nodes.join(',')}; ready in ${Date.now() - began} ms\n`,
      );
      writeClusterStatus(statusFile, { state: 'ready' });
      return c;
    },
    (error: unknown) => {
      process.stderr.write(
        `[test-servers] redis cluster ${nodes.join(',')} did not start: ${String(error)}\n`,
      );
      writeClusterStatus(statusFile, { state: 'failed', error: String(error) });
      return undefined;
    },
  );
  project.provide('redisClusterNodes', nodes.join(','));
  project.provide('redisClusterStatusFile', statusFile);
  return async () => {
    await (await cluster)?.stop();
    fs.rmSync(statusFile, { force: true });
  };
}

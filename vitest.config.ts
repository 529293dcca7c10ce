// Three projects: `unit` (pure code, fast, no servers) runs first; `integration` (*.int.test.ts,
// real Kafka and Redis from libs/testkit/src/support/global-setup.ts) runs after it, at most three files at a
// time on a 2-core machine: an integration file mostly waits (service start-up, Kafka group joins, heartbeats;
// test/e2e/mixed-recovery used 32 s of CPU in 54 s), so two at a time left a core idle. Every file has its own
// topics, key prefix, consumer group and ports (testEnv), so files side by side do not meet. `cluster` runs some of them again on a Redis Cluster.
import { defineConfig } from 'vitest/config';

const WORKSPACES = ['libs', 'services', 'tools', 'apps', 'bench'];

/** Integration tests that run a second time in the `cluster` project (on a Redis Cluster). */
const CLUSTER_TESTS = [
  'libs/store/src/*.int.test.ts',
  'libs/testkit/src/support/redis-cluster.int.test.ts',
  'services/compactor/src/compactor.int.test.ts',
  'tools/cli/src/rebuild/carry-over.int.test.ts',
  'tools/cli/src/commands/rebuild.int.test.ts',
];

export default defineConfig({
  test: {
    // One pool for both projects (vitest 3): unit files are CPU-bound, and 3 forks on 2 cores cost them little.
    maxWorkers: 3,
    minWorkers: 1,
    // Stopping the local Kafka (controlled shutdown) can take a while.
    teardownTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: [...WORKSPACES.map((dir) => `${dir}/**/*.test.ts`), 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.int.test.ts'],
          // Property tests and the lint-boundary test do real work; on a loaded 2-core machine 5 s is too tight.
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['**/*.int.test.ts'],
          // The cluster's own test needs the `cluster` project's cluster.
          exclude: [
            '**/node_modules/**',
            '.cache/**',
            '.data/**',
            'libs/testkit/src/support/redis-cluster.int.test.ts',
          ],
          globalSetup: ['libs/testkit/src/support/global-setup.ts'],
          setupFiles: ['libs/testkit/src/support/setup-file.ts'],
          pool: 'forks',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
          sequence: { groupOrder: 1 },
        },
      },
      {
        // The store's and the rebuild's integration tests again, against a private Redis Cluster (3 masters +
        // 3 replicas, AOF on) instead of the single test Redis: testEnv() hands services REDIS_CLUSTER_NODES.
        // Only: `npx vitest run --project cluster`.
        test: {
          name: 'cluster',
          include: [...CLUSTER_TESTS],
          exclude: ['**/node_modules/**', '.cache/**', '.data/**'],
          globalSetup: [
            'libs/testkit/src/support/global-setup.ts',
            'libs/testkit/src/support/cluster-global-setup.ts',
          ],
          setupFiles: ['libs/testkit/src/support/setup-file.ts'],
          pool: 'forks',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

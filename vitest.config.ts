// Three projects: `unit` (pure code, fast, no servers) in shared threads, and beside it `cluster` (some
// integration files again, on a Redis Cluster); then `integration` (*.int.test.ts, real Kafka and Redis from
// libs/testkit/src/support/global-setup.ts), at most four files at a time on a 2-core machine: the integration files
// spend a quarter of their time waiting (kills, group joins, restarts), and with fewer files side by side the
// cores sat idle through those waits.
// Every file has its own topics, key prefix, consumer group and ports (testEnv), so files side by side do not meet.
import { defineConfig } from 'vitest/config';
// Relative, not '@va/testkit/time': the config's own imports are bundled only when relative; a package import
// would be loaded by Node itself, which cannot load the package's .ts entry point.
// eslint-disable-next-line import-x/no-relative-packages -- see above
import { scaled } from './libs/testkit/src/support/time.js';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';

const WORKSPACES = ['libs', 'services', 'tools', 'apps', 'bench'];

/** Integration tests that run a second time in the `cluster` project (on a Redis Cluster). */
const CLUSTER_TESTS = [
  'libs/store/src/*.int.test.ts',
  'services/ingest/test/store/*.int.test.ts',
  'libs/store/src/testing/cluster.int.test.ts',
  'services/compactor/src/compactor.int.test.ts',
  'services/ingest/test/replica-wait.int.test.ts',
  'tools/cli/src/rebuild/carry-over.int.test.ts',
  'tools/cli/src/commands/rebuild.int.test.ts',
];

export default defineConfig({
  test: {
    // One pool for every project (vitest 3).
    maxWorkers: 4,
    // vitest 3.2 reads whether a pool reuses its workers from here, the root, not from a project's
    // `isolate` (which only decides, inside a worker, whether modules are reset between files): with
    // only the projects' `isolate: false`, every file still got a new fork or thread. Reused, the
    // files skip a process start and their module graph's load. minWorkers = maxWorkers: with fewer,
    // tinypool's recycling of idle workers between projects failed the run with "Terminating worker
    // thread" (vitest-dev/vitest#8133).
    minWorkers: 4,
    poolOptions: { threads: { isolate: false }, forks: { isolate: false } },
    // Stopping the local Kafka (controlled shutdown) can take a while.
    teardownTimeout: scaled(60_000),
    // Within each group (unit, then integration + cluster), the files known to be long start first.
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: [...WORKSPACES.map((dir) => `${dir}/**/*.test.ts`), 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.int.test.ts'],
          // Property tests and the lint-boundary test do real work; on a loaded 2-core machine 5 s is too tight.
          // Every budget here: at least 3x what its longest test takes, times TEST_TIME_SCALE (README of testkit).
          testTimeout: scaled(60_000),
          // Pure code without module mocks, stubbed globals or fake timers: the files can share threads and
          // their module graph (half the CPU of a fresh thread per file).
          pool: 'threads',
          isolate: false,
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
            'libs/store/src/testing/cluster.int.test.ts',
            // Starts a cluster of its own (it freezes and crashes nodes): once, in the `cluster` project.
            'services/ingest/test/replica-wait.int.test.ts',
          ],
          globalSetup: ['libs/testkit/src/support/global-setup.ts'],
          setupFiles: ['libs/testkit/src/support/setup-file.ts'],
          pool: 'forks',
          // A fork runs file after file instead of one process per file: the files keep no state in their
          // modules beyond what each starts and stops itself (setup-file.ts kills a file's children).
          isolate: false,
          testTimeout: scaled(300_000),
          hookTimeout: scaled(300_000),
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
          setupFiles: [
            'libs/testkit/src/support/setup-file.ts',
            'libs/testkit/src/support/cluster-setup-file.ts',
          ],
          pool: 'forks',
          isolate: false,
          testTimeout: scaled(300_000),
          hookTimeout: scaled(300_000),
          env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
          // Beside the unit tests (another pool, so vitest runs both at once), not after the integration
          // files: forks that run file after file serve one project at a time, so at the end of the run
          // this project's two long files (mostly failovers and kills) kept the machine half idle.
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});

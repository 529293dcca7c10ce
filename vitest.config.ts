// Two projects: `unit` (pure code, fast, no servers) runs first; `integration` (*.int.test.ts,
// real Kafka and Redis from libs/testkit/src/support/global-setup.ts) runs after it, at most two files at a time:
// the machine has 2 cores and a broker to share.
import { defineConfig } from 'vitest/config';

const WORKSPACES = ['libs', 'services', 'tools', 'bench'];

export default defineConfig({
  test: {
    maxWorkers: 2,
    minWorkers: 1,
    // Stopping the local Kafka (controlled shutdown) can take a while.
    teardownTimeout: 60_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: [...WORKSPACES.map((dir) => `${dir}/**/*.test.ts`), 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.int.test.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['**/*.int.test.ts'],
          exclude: ['**/node_modules/**', '.cache/**', '.data/**'],
          globalSetup: ['libs/testkit/src/support/global-setup.ts'],
          setupFiles: ['libs/testkit/src/support/setup-file.ts'],
          pool: 'forks',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          env: { KAFKAJS_NO_PARTITIONER_WARNING: '1' },
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

// The rebuild's replay process (replay-worker.ts) ends with the CLI that started it, whenever the CLI is
// SIGKILLed: right after starting it, while it starts, or while it consumes. A clean-clone run left an orphan
// replay process (no IPC channel, adopted by init) replaying beside the resumed rebuild; this test does not
// reproduce that run (the old code passes it too) but fails for a replay process that outlives its parent.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { testEnv, waitFor } from '@va/testkit/support';

const entry = fileURLToPath(new URL('./replay-worker.ts', import.meta.url));

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it.each([0, 300, 1500])(
  'a replay process exits when its parent is SIGKILLed %i ms after starting it',
  async (delayMs) => {
    // The parent: starts the replay process as consumer.ts does (detached, an IPC channel), prints its pid,
    // and is then killed from here.
    const parentCode = `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['--import', 'tsx', ${JSON.stringify(entry)}, '{"group":"t-replay-orphan","generation":2,"boundary":null}'],
      { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    process.stdout.write(child.pid + '\\n');
    setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', parentCode], {
      // The run's Kafka and Redis: the replay process can start and consume, so that only its parent's
      // death ends it.
      env: { ...process.env, ...(await testEnv(`replay orphan ${delayMs}`)).env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d) => resolve(Number(String(d)))),
    );
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    parent.kill('SIGKILL');
    try {
      await waitFor(() => !alive(pid), {
        timeoutMs: 20_000,
        intervalMs: 100,
        message: `replay process ${pid} gone`,
      });
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    expect(alive(pid)).toBe(false);
  },
);

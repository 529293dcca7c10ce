// Starts the project's services as real child processes, compiled as `npm start` runs them
// (node services/<name>/dist/main.js; global-setup.ts builds the bundles when a source changed), with output
// going straight to a log file per test under .cache/test-logs/ (kept after the run for reading).
// Compiled rather than through tsx: a process starts in a fraction of the time and runs without the
// loader's helpers in its hot paths (tsx wraps every function it creates in a keep-names call).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { CACHE_DIR, ROOT } from '@va/infra/paths';
import { track } from './children.js';
import { waitFor } from './wait.js';

export { freePort } from './ports.js';
export { waitFor } from './wait.js';
export { killAllChildren } from './children.js';

export type ServiceName = 'ingest' | 'query' | 'compactor';

export interface ServiceProcess {
  name: ServiceName;
  child: ChildProcess;
  pid: number;
  logFile: string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** Sends a signal (default SIGTERM) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
  /** Polls url until it answers 200; fails early if the process exits meanwhile. */
  waitForHealth(url: string, timeoutMs?: number): Promise<void>;
  /** The log so far (stdout and stderr interleaved). */
  readLog(): string;
}

const LOG_DIR = path.join(CACHE_DIR, 'test-logs');

function logFileFor(name: string): string {
  const state = expect.getState();
  const test = state.currentTestName ?? path.basename(state.testPath ?? 'setup');
  const slug = test.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  fs.mkdirSync(LOG_DIR, { recursive: true });
  return path.join(LOG_DIR, `${slug}.${name}.${Date.now()}.log`);
}

export function startService(name: ServiceName, env: Record<string, string>): ServiceProcess {
  const logFile = logFileFor(name);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--enable-source-maps', `services/${name}/dist/main.js`], {
    cwd: ROOT,
    env,
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  if (child.pid === undefined) throw new Error(`startService(${name}): spawn failed, see ${logFile}`);
  track(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitedYet = false;
  void exited.then(() => (exitedYet = true));
  const readLog = () => fs.readFileSync(logFile, 'utf8');

  return {
    name,
    child,
    pid: child.pid,
    logFile,
    exited,
    readLog,
    kill(signal = 'SIGTERM') {
      if (!exitedYet) child.kill(signal);
      return exited;
    },
    async waitForHealth(url, timeoutMs = 60_000) {
      let settled = false;
      const healthy = waitFor(
        async () => {
          if (settled) return true; // the process died: stop polling
          // `connection: close`: a polled socket kept in fetch's pool sits idle until the test's first
          // query, often ~70 s later, right at the server's 72 s keep-alive timeout. Reused as the server
          // closes it, the query fails with "other side closed", and fetch does not retry.
          const response = await fetch(url, {
            headers: { connection: 'close' },
            signal: AbortSignal.timeout(2_000),
          });
          await response.arrayBuffer();
          return response.status === 200;
        },
        { timeoutMs, intervalMs: 200, message: `${name} healthy at ${url} (log: ${logFile})` },
      );
      const died = exited.then((code) => {
        throw new Error(
          `${name} exited (code ${code}) before ${url} answered; log ${logFile}:\n${readLog()}`,
        );
      });
      try {
        await Promise.race([healthy, died]);
      } finally {
        settled = true;
      }
    },
  };
}

/**
 * The services under test, as `npm start` runs them: the compiled bundles,
 * `node services/<name>/dist/main.js` (built first when a source changed, infra/lib/build.mjs), one
 * child process each, output into .cache/bench/logs/. Not through tsx: its transform keeps function
 * names with a helper call at every function creation, which cost a closure-heavy query up to a fifth
 * of its CPU. With a profile directory the process also runs under `--cpu-prof` (V8 writes the
 * profile when the process exits after SIGTERM; profile-sources.ts maps it back to the sources).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodeFlagsOf, serviceEnvOf } from '@va/infra/service-runtime';
import { CACHE_DIR, ROOT } from '@va/infra/paths';

export type ServiceName = 'ingest' | 'query' | 'compactor';

export interface Service {
  name: ServiceName;
  pid: number;
  logFile: string;
  exited: Promise<number | null>;
  /** Polls url until it answers 200; fails early, with the log's tail, if the process exits. */
  waitHealthy(url: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM (the services finish their work and exit), SIGKILL after timeoutMs. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export const LOG_DIR = path.join(CACHE_DIR, 'bench', 'logs');
const running = new Set<ChildProcess>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A crashed or interrupted bench must not leave services behind. */
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export function startService(
  name: ServiceName,
  env: Record<string, string>,
  options: { runId: string; cpuProfDir?: string | undefined; label: string },
): Service {
  fs.mkdirSync(LOG_DIR, { recursive: true });
  const logFile = path.join(LOG_DIR, `${options.runId}.${options.label}.log`);
  const fd = fs.openSync(logFile, 'a');
  // One directory per process: worker threads write profiles of their own; a fixed --cpu-prof-name
  // would let them overwrite the main thread's.
  const profile = options.cpuProfDir
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(options.cpuProfDir, options.label)}`]
    : [];
  const child = spawn(
    process.execPath,
    [...nodeFlagsOf(name), ...profile, '--enable-source-maps', `services/${name}/dist/main.js`],
    {
      cwd: ROOT,
      env: { ...serviceEnvOf(name), ...env },
      stdio: ['ignore', fd, fd],
    },
  );
  fs.closeSync(fd);
  if (child.pid === undefined) throw new Error(`${name}: spawn failed, see ${logFile}`);
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));

  return {
    name,
    pid: child.pid,
    logFile,
    exited,
    async waitHealthy(url, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (gone) throw new Error(`${name} exited before ${url} answered; ${logFile}:\n${tail(logFile)}`);
        try {
          const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
          if (response.status === 200) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline)
          throw new Error(`${name} not healthy at ${url} after ${timeoutMs} ms; ${logFile}`);
        await sleep(200);
      }
    },
    async stop(timeoutMs = 30_000) {
      if (gone) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

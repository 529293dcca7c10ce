// Runs one service as a child process, forwards its output line by line with a [name] prefix, and restarts
// it with exponential backoff when it crashes. The child gets its own process group so that a Ctrl-C in the
// terminal reaches only us: we then stop the services exactly once, in order, before Kafka and Redis.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { DATA_DIR, ROOT } from './paths.mjs';
import { isOurProcess, readPid, removeFile, stopPid, writePid } from './proc.mjs';
import { makeLog } from './log.mjs';
import { nodeFlagsOf, serviceEnvOf } from './service-runtime.mjs';

const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
/** A run this long counts as healthy: the next crash restarts after the minimum delay again. */
const STABLE_AFTER_MS = 60_000;
const COLORS = { ingest: 36, query: 35, compactor: 33 };

export class Supervisor {
  /** entry: the compiled service (infra/lib/build.mjs builds it before `npm start` starts anything). */
  constructor(name, env, entry = path.join('services', name, 'dist', 'main.js')) {
    this.name = name;
    this.env = env;
    this.entry = entry;
    this.pidFile = path.join(DATA_DIR, 'services', `${name}.pid`);
    this.log = makeLog(name);
    this.child = undefined;
    this.stopping = false;
    this.backoffMs = BACKOFF_MIN_MS;
    this.restartTimer = undefined;
  }

  exists() {
    return fs.existsSync(path.resolve(ROOT, this.entry));
  }

  /** A service left behind by an earlier `npm start` that was killed outright (SIGKILL): stop it first. */
  async stopOrphan() {
    const pid = readPid(this.pidFile);
    if (isOurProcess(pid, [this.entry])) {
      this.log(`stopping a leftover ${this.name} (pid ${pid}) from an earlier run`);
      await stopPid(pid, { timeoutMs: 15_000 });
    }
    removeFile(this.pidFile);
  }

  start() {
    const startedAt = Date.now();
    // --enable-source-maps: stack traces in the logs name the TypeScript file and line (dist/*.js.map).
    const flags = [...nodeFlagsOf(this.name), '--enable-source-maps'];
    const child = spawn(process.execPath, [...flags, this.entry], {
      cwd: ROOT,
      // The service's runtime settings first: an operator's own value of one of them wins.
      env: { ...serviceEnvOf(this.name), ...this.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    writePid(this.pidFile, child.pid);
    this.forward(child.stdout, process.stdout);
    this.forward(child.stderr, process.stderr);
    child.once('exit', (code, signal) => {
      this.child = undefined;
      removeFile(this.pidFile);
      if (this.stopping) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.backoffMs = BACKOFF_MIN_MS;
      this.log(`exited (${signal ?? `code ${code}`}); restarting in ${this.backoffMs / 1000} s`);
      this.restartTimer = setTimeout(() => this.start(), this.backoffMs);
      this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    });
    child.once('error', (error) => this.log(`spawn failed: ${error.message}`));
  }

  forward(stream, target) {
    const color = process.stdout.isTTY ? COLORS[this.name] : undefined;
    const prefix = color ? `\x1b[${color}m[${this.name}]\x1b[0m ` : `[${this.name}] `;
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      target.write(`${prefix}${line}\n`);
    });
  }

  /** SIGTERM (the service drains and exits), SIGKILL after timeoutMs. No restart afterwards. */
  async stop(timeoutMs = 20_000) {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (!(await stopPid(child.pid, { timeoutMs }))) this.log(`pid ${child.pid} would not exit`);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
}

// A dedicated redis-server for tests that crash it on purpose (SIGKILL, then restart on the same port and
// data dir to prove what survives): AOF with appendfsync everysec and the project's infra/redis.conf.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { redisPing, redisServerArgs } from '@va/infra/redis';
import { track } from './children.js';
import { freePort } from './ports.js';
import { waitFor } from './wait.js';

export interface RedisServerOptions {
  /** Data directory (the AOF lives in <dir>/appendonlydir); created if missing. */
  dir: string;
  port?: number;
  appendonly?: boolean;
}

export interface RedisServer {
  url: string;
  port: number;
  readonly pid: number;
  /** Sends the signal (default SIGKILL: a crash) and resolves once the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a new server on the same port and dir (kills the old one first if it still runs). */
  restart(): Promise<void>;
  /** Clean stop (SIGTERM: fsyncs the AOF). */
  stop(): Promise<void>;
}

export async function startRedisServer(options: RedisServerOptions): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = path.resolve(options.dir);
  fs.mkdirSync(dir, { recursive: true });
  const args = [
    ...redisServerArgs({ port, dir }),
    ...(options.appendonly === false ? ['--appendonly', 'no'] : []),
  ];
  const logFile = path.join(dir, 'redis.log');
  let child: ChildProcess;
  let exited: Promise<void>;

  async function launch(): Promise<void> {
    const fd = fs.openSync(logFile, 'a');
    child = spawn('redis-server', args, { stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    track(child);
    let gone = false;
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => (gone = true));
    await waitFor(
      async () => {
        if (gone) throw new Error(`redis-server exited; see ${logFile}`);
        return redisPing(port);
      },
      { timeoutMs: 30_000, intervalMs: 50, message: `redis-server on ${port} (log ${logFile})` },
    );
  }

  async function kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid ?? -1;
    },
    kill,
    async restart() {
      await kill('SIGKILL');
      await launch();
    },
    stop: () => kill('SIGTERM'),
  };
}

/**
 * Plays a machine crash under an `appendfsync everysec` AOF: cuts about `bytes` off the tail of the AOF in `dir`
 * (a stopped redis-server's data folder). A SIGKILLed Redis keeps what it already wrote to the kernel, so only
 * this loses the last second. The cut is made at a transaction boundary (just before a MULTI): Redis 7.0 loads a
 * file cut inside a MULTI block correctly once but leaves the dangling MULTI in the file, which merges the half
 * transaction into the next one at the following restart (a Redis durability issue no client protocol can undo).
 */
export function loseAofTail(dir: string, bytes: number): void {
  const aofDir = path.join(dir, 'appendonlydir');
  const incr = fs
    .readdirSync(aofDir)
    .filter((f) => f.endsWith('.incr.aof'))
    .sort()
    .pop();
  if (!incr) return;
  const file = path.join(aofDir, incr);
  const content = fs.readFileSync(file);
  const cut = content.lastIndexOf('*1\r\n$5\r\nMULTI\r\n', Math.max(0, content.length - bytes));
  if (cut > 0) fs.truncateSync(file, cut);
}

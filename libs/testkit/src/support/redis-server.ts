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
  const args = redisServerArgs({ port, dir, appendonly: options.appendonly });
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
 * The top-level units of an AOF's RESP command stream, in order: a MULTI ... EXEC block, or one command
 * outside a transaction. `start`/`end` are byte offsets; a trailing unit the file cuts short is left out.
 */
export function aofUnits(content: Buffer): { start: number; end: number }[] {
  const units: { start: number; end: number }[] = [];
  const line = (at: number): { value: number; next: number } | undefined => {
    const eol = content.indexOf('\r\n', at);
    return eol < 0 ? undefined : { value: Number(content.toString('latin1', at + 1, eol)), next: eol + 2 };
  };
  let at = 0;
  let open: number | undefined; // start of the MULTI block being read
  while (at < content.length) {
    if (content[at] !== 0x2a /* '*' */) throw new Error(`aofUnits: no command at byte ${at}`);
    const start = at;
    const count = line(at);
    if (!count) break;
    at = count.next;
    let name = '';
    for (let n = 0; n < count.value; n++) {
      const size = line(at);
      if (!size || size.next + size.value + 2 > content.length) return units;
      if (n === 0) name = content.toString('latin1', size.next, size.next + size.value).toUpperCase();
      at = size.next + size.value + 2;
    }
    if (name === 'MULTI') open = start;
    else if (name === 'EXEC' && open !== undefined) {
      units.push({ start: open, end: at });
      open = undefined;
    } else if (open === undefined) units.push({ start, end: at });
  }
  return units;
}

/**
 * Plays a machine crash under an `appendfsync everysec` AOF: cuts about `bytes` off the tail of the AOF in `dir`
 * (a stopped redis-server's data folder). A SIGKILLed Redis keeps what it already wrote to the kernel, so only
 * this loses the last second. The cut is made between two top-level units (never inside a MULTI block): Redis 7.0
 * loads a file cut inside a MULTI block correctly once but leaves the dangling MULTI in the file, which merges the
 * half transaction into the next one at the following restart (a Redis durability issue no client protocol can undo).
 *
 * With `losing`, the cut also reaches back before the last unit that names that string (e.g. a watermark key), so
 * that the restarted Redis has really lost a write of it; throws when no unit names it.
 * Returns how many bytes were cut.
 */
export function loseAofTail(dir: string, bytes: number, options: { losing?: string } = {}): number {
  const aofDir = path.join(dir, 'appendonlydir');
  const incr = fs
    .readdirSync(aofDir)
    .filter((f) => f.endsWith('.incr.aof'))
    .sort()
    .pop();
  if (!incr) {
    if (options.losing) throw new Error('loseAofTail: no incremental AOF file');
    return 0;
  }
  const file = path.join(aofDir, incr);
  const content = fs.readFileSync(file);
  const units = aofUnits(content);
  // A file shorter than `bytes` loses nothing (a crash loses at most the last second, not the whole file).
  let cut = [...units].reverse().find((u) => u.start <= content.length - bytes)?.start ?? content.length;
  if (options.losing) {
    const marker = Buffer.from(options.losing);
    const last = [...units].reverse().find((u) => content.subarray(u.start, u.end).includes(marker));
    if (!last) throw new Error(`loseAofTail: no write of ${options.losing} in ${file}`);
    cut = Math.min(cut, last.start);
  }
  fs.truncateSync(file, cut);
  return content.length - cut;
}

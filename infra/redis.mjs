// The project's own redis-server (default port 6380, data in .data/redis), never the shared one on 6379.
//   node infra/redis.mjs start|stop|status   (prefer `npm run stack`)
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DATA_DIR, REDIS_CONF } from './lib/paths.mjs';
import { ensureRedisServer } from './lib/install.mjs';
import { makeLog } from './lib/log.mjs';
import {
  isOurProcess,
  portOpen,
  readPid,
  removeFile,
  spawnDaemon,
  stopPid,
  waitUntil,
  writePid,
} from './lib/proc.mjs';

const HOST = '127.0.0.1';

function layout({ stateDir = path.join(DATA_DIR, 'redis'), port = 6380 } = {}) {
  return {
    stateDir,
    port,
    dataDir: path.join(stateDir, 'data'),
    pidFile: path.join(stateDir, 'redis.pid'),
    logFile: path.join(stateDir, 'redis.log'),
  };
}

/**
 * Command-line arguments of a redis-server on this port and data dir, with the project's config;
 * `appendonly: false` turns its AOF off (the server keeps nothing on disk).
 */
export function redisServerArgs({ port, dir, appendonly = true }) {
  return [REDIS_CONF, '--port', String(port), '--dir', dir, ...(appendonly ? [] : ['--appendonly', 'no'])];
}

/**
 * One command to the server at `port` -> its reply as text (PING, INFO, CLUSTER INFO and CLUSTER NODES answer
 * one simple or bulk string); an error reply rejects. Over a socket of our own (infra has no dependencies),
 * not `redis-cli`: the test cluster's health checks poll six nodes five times a second, and a process per
 * question cost the test processes seconds of CPU in spawns alone.
 */
export function redisCommand(port, args, { host = HOST, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const chunks = [];
    const fail = (error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () =>
      fail(new Error(`redis :${port} ${args.join(' ')}: no reply in ${timeoutMs} ms`)),
    );
    socket.once('error', fail);
    socket.once('connect', () => socket.write(respCommand(args)));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const reply = bulkReply(Buffer.concat(chunks));
      if (reply === undefined) return;
      socket.destroy();
      if (reply instanceof Error) reject(new Error(`redis :${port} ${args.join(' ')}: ${reply.message}`));
      else resolve(reply);
    });
  });
}

const respCommand = (args) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** A complete reply: its text (bulk or simple string), an Error; undefined while incomplete. */
function bulkReply(bytes) {
  const eol = bytes.indexOf('\r\n');
  if (eol < 0) return undefined;
  const head = bytes.toString('utf8', 0, eol);
  if (head[0] === '-') return new Error(head.slice(1));
  if (head[0] === '+') return head.slice(1);
  if (head[0] !== '$') return new Error(`unexpected reply ${head.slice(0, 40)}`);
  const length = Number(head.slice(1));
  if (length < 0) return '';
  const end = eol + 2 + length;
  return bytes.length >= end + 2 ? bytes.toString('utf8', eol + 2, end) : undefined;
}

/** Resolves true once the server answers PING with PONG (not while it is still loading the AOF). */
export function redisPing(port, host = HOST, timeoutMs = 1000) {
  return redisCommand(port, ['PING'], { host, timeoutMs }).then(
    (reply) => reply === 'PONG',
    () => false,
  );
}

function markers(l) {
  return ['redis-server', `:${l.port}`];
}

/**
 * `appendonly: false` keeps nothing on disk (the test run's shared Redis: no test restarts it).
 * @returns {Promise<{ url: string, pid: number, reused: boolean }>}
 */
export async function startRedis(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('redis');
  const url = `redis://${HOST}:${l.port}`;
  const existing = readPid(l.pidFile);
  if (isOurProcess(existing, markers(l))) {
    await waitUntil(() => redisPing(l.port), { timeoutMs: 60_000, what: 'redis', logFile: l.logFile });
    return { url, pid: existing, reused: true };
  }
  if (await portOpen(HOST, l.port))
    throw new Error(`redis: port ${l.port} is already taken by another process`);
  ensureRedisServer();
  fs.mkdirSync(l.dataDir, { recursive: true });
  const args = redisServerArgs({ port: l.port, dir: l.dataDir, appendonly: options.appendonly });
  const child = spawnDaemon('redis-server', args, {
    logFile: l.logFile,
    cwd: l.stateDir,
    env: process.env,
  });
  writePid(l.pidFile, child.pid);
  log(`starting on ${HOST}:${l.port} (pid ${child.pid}, data ${l.dataDir})`);
  try {
    await waitUntil(() => redisPing(l.port), { timeoutMs: 60_000, what: 'redis', child, logFile: l.logFile });
  } catch (error) {
    await stopPid(child.pid, { timeoutMs: 5_000 });
    removeFile(l.pidFile);
    throw error;
  }
  return { url, pid: child.pid, reused: false };
}

/** SIGTERM makes redis-server fsync the AOF and exit cleanly. */
export async function stopRedis(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('redis');
  const pid = readPid(l.pidFile);
  if (isOurProcess(pid, markers(l))) {
    log(`stopping (pid ${pid})`);
    if (!(await stopPid(pid, { timeoutMs: options.timeoutMs ?? 20_000 }))) {
      throw new Error(`redis: pid ${pid} did not exit`);
    }
  }
  removeFile(l.pidFile);
}

export async function redisStatus(options = {}) {
  const l = layout(options);
  const pid = readPid(l.pidFile);
  const running = isOurProcess(pid, markers(l));
  const ready = running && (await redisPing(l.port));
  return {
    running,
    ready,
    pid: running ? pid : undefined,
    url: `redis://${HOST}:${l.port}`,
    stateDir: l.stateDir,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const actions = { start: () => startRedis(), stop: () => stopRedis(), status: () => redisStatus() };
  const action = actions[process.argv[2]];
  if (!action) {
    console.error('usage: node infra/redis.mjs start|stop|status');
    process.exit(2);
  }
  action().then(
    (result) => result && console.log(JSON.stringify(result)),
    (error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}

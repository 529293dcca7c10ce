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

/** Command-line arguments of a redis-server on this port and data dir, with the project's config. */
export function redisServerArgs({ port, dir }) {
  return [REDIS_CONF, '--port', String(port), '--dir', dir];
}

/** Resolves true once the server answers PING with PONG (not while it is still loading the AOF). */
export function redisPing(port, host = HOST, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function markers(l) {
  return ['redis-server', `:${l.port}`];
}

/** @returns {Promise<{ url: string, pid: number, reused: boolean }>} */
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
  const child = spawnDaemon('redis-server', redisServerArgs({ port: l.port, dir: l.dataDir }), {
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

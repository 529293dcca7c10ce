// Process helpers shared by the stack scripts: pid files, liveness that ignores zombies and recycled pids,
// detached daemons whose output goes to a file, and a polite stop (SIGTERM, then SIGKILL).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export function readPid(file) {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function writePid(file, pid) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${pid}\n`);
}

export function removeFile(file) {
  fs.rmSync(file, { force: true });
}

/** Alive and not a zombie (a zombie still answers kill(pid, 0) until its parent reaps it). */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (not Linux): trust kill(pid, 0)
  }
}

/** The pid is alive and its command line contains every marker: guards against a recycled pid. */
export function isOurProcess(pid, markers) {
  if (pid === undefined || !isAlive(pid)) return false;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    return markers.every((marker) => cmdline.includes(marker));
  } catch {
    return true;
  }
}

/**
 * Starts a long-lived server in its own process group (so a Ctrl-C aimed at our terminal does not reach it
 * before we stop it in order), with stdout and stderr appended to logFile. Returns the ChildProcess.
 */
export function spawnDaemon(command, args, { logFile, cwd, env }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  child.unref();
  return child;
}

/** SIGTERM, wait up to timeoutMs, then SIGKILL. Resolves true once the process is gone. */
export async function stopPid(pid, { timeoutMs = 20_000, signal = 'SIGTERM' } = {}) {
  if (!isAlive(pid)) return true;
  try {
    process.kill(pid, signal);
  } catch {
    return !isAlive(pid);
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(100);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
  return !isAlive(pid);
}

export function portOpen(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls check() until it returns a truthy value; fails early when the watched child exits. */
export async function waitUntil(check, { timeoutMs, intervalMs = 200, what, child, logFile }) {
  const deadline = Date.now() + timeoutMs;
  let exited;
  const onExit = (code, signal) => (exited = signal ?? code);
  child?.once('exit', onExit);
  try {
    for (;;) {
      if (exited !== undefined)
        throw new Error(`${what}: process exited (${exited}) during startup${tail(logFile)}`);
      const value = await check().catch(() => undefined);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms${tail(logFile)}`);
      await sleep(intervalMs);
    }
  } finally {
    child?.off('exit', onExit);
  }
}

function tail(logFile, lines = 30) {
  if (!logFile) return '';
  try {
    const text = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return `\n--- last lines of ${logFile} ---\n${text}`;
  } catch {
    return '';
  }
}

export function commandExists(command) {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

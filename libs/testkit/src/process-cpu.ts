/**
 * CPU time of another process on this machine, from Linux's /proc: what the benchmarks report per event
 * for the worker, the broker and Redis. The broker is found by its listening port, because the benchmarks
 * often use one they did not start (KAFKA_BROKERS).
 */
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux we run). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) process `pid` used so far; NaN when it cannot be read (not Linux, gone). */
export function processCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    // The command name (field 2) may hold spaces and parentheses: the other fields follow its last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
  } catch {
    return Number.NaN;
  }
}

/** Inodes of the TCP sockets listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let table: string;
    try {
      table = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      // st 0A = LISTEN; the local address ends with the port in hex.
      if (local === undefined || columns[3] !== '0A') continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) inodes.add(columns[9]!);
    }
  }
  return inodes;
}

/** The process listening on TCP `port` on this machine, when this user may see it; else undefined. */
export function listenerPid(port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${entry}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return Number(entry);
    }
  }
  return undefined;
}

/** The process of broker `host:port` when the host is this machine's loopback address; else undefined. */
export function localBrokerPid(broker: string | undefined): number | undefined {
  const port = /^(?:127\.0\.0\.1|localhost|\[::1\]):(\d+)$/.exec(broker ?? '')?.[1];
  return port === undefined ? undefined : listenerPid(Number(port));
}

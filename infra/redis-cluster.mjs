// A local Redis Cluster for tests and trials: Debian's redis-server × (masters × (1 + replicas)) on loopback
// ports basePort, basePort + 1, ... (cluster bus on port + 10000), AOF on (infra/redis.conf), joined with
// `redis-cli --cluster create --cluster-replicas <n>`. State (AOF, nodes.conf, logs, pids) lives under stateDir,
// one folder per node; stop removes it when asked, so nothing is left behind.
//   node infra/redis-cluster.mjs start|stop|status [basePort]
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CACHE_DIR } from './lib/paths.mjs';
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
import { redisCommand, redisPing, redisServerArgs } from './redis.mjs';

const HOST = '127.0.0.1';
const run = promisify(execFile);

/** Node timeout of the test cluster: a SIGKILLed master is replaced by its replica a few seconds later. */
export const CLUSTER_NODE_TIMEOUT_MS = 2_000;

function layout({
  stateDir = path.join(CACHE_DIR, 'redis-cluster'),
  basePort = 7000,
  masters = 3,
  replicas = 1,
} = {}) {
  const count = masters * (1 + replicas);
  const nodes = Array.from({ length: count }, (_, n) => {
    const port = basePort + n;
    const dir = path.join(stateDir, `node-${port}`);
    return { port, dir, pidFile: path.join(dir, 'redis.pid'), logFile: path.join(dir, 'redis.log') };
  });
  return { stateDir, basePort, masters, replicas, nodes };
}

/** host:port of every node of the cluster these options describe (known before it starts). */
export function clusterAddresses(options = {}) {
  return layout(options).nodes.map((n) => `${HOST}:${n.port}`);
}

/** Command-line arguments of one cluster node: the project's config plus cluster mode. */
export function clusterNodeArgs({ port, dir }) {
  return [
    ...redisServerArgs({ port, dir }),
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    'nodes.conf',
    '--cluster-node-timeout',
    String(CLUSTER_NODE_TIMEOUT_MS),
    // A replica may take over however long it was cut off (a test kills masters on purpose).
    '--cluster-replica-validity-factor',
    '0',
  ];
}

/** CLUSTER INFO of one node as an object (cluster_state, cluster_slots_ok, ...). */
export async function clusterInfo(port) {
  const text = await redisCommand(port, ['cluster', 'info']);
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => line.trim().split(':', 2)),
  );
}

/** CLUSTER NODES of one node: [{ id, port, flags: string[], master, slots: string[] }]. */
export async function clusterNodes(port) {
  const text = await redisCommand(port, ['cluster', 'nodes']);
  return text
    .trim()
    .split(/\r?\n/)
    .filter(Boolean)
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.split(' ');
      return {
        id,
        port: Number(address.split('@')[0].split(':').pop()),
        flags: flags.split(','),
        master,
        slots,
      };
    });
}

/**
 * Every live node says the cluster is ok, with all 16384 slots served, and every replica's link to its
 * master is up (a replica still in its first sync acknowledges nothing: WAIT would count it out).
 */
async function healthy(ports) {
  for (const port of ports) {
    const info = await clusterInfo(port);
    if (info.cluster_state !== 'ok' || info.cluster_slots_ok !== '16384') return false;
    const replication = await redisCommand(port, ['info', 'replication']);
    if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
  }
  return true;
}

const markers = (node) => ['redis-server', `:${node.port}`];

/**
 * Starts the nodes (or finds them running by their pid files) and creates the cluster when the nodes are new.
 * @returns {Promise<{ nodes: string[], ports: number[], reused: boolean }>} nodes as host:port
 */
export async function startRedisCluster(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('redis-cluster');
  const addresses = clusterAddresses(options);
  const ports = l.nodes.map((n) => n.port);
  const result = (reused) => ({ nodes: addresses, ports, reused });
  if (l.nodes.every((n) => isOurProcess(readPid(n.pidFile), markers(n)))) {
    await waitUntil(() => healthy(ports), { timeoutMs: 60_000, what: 'redis cluster' });
    return result(true);
  }
  for (const n of l.nodes) {
    if (await portOpen(HOST, n.port)) throw new Error(`redis-cluster: port ${n.port} is already taken`);
    if (await portOpen(HOST, n.port + 10_000))
      throw new Error(`redis-cluster: bus port ${n.port + 10_000} is already taken`);
  }
  ensureRedisServer();
  const fresh = l.nodes.every((n) => !fs.existsSync(path.join(n.dir, 'nodes.conf')));
  const started = [];
  try {
    for (const n of l.nodes) {
      fs.mkdirSync(n.dir, { recursive: true });
      const child = spawnDaemon('redis-server', clusterNodeArgs(n), {
        logFile: n.logFile,
        cwd: n.dir,
        env: process.env,
      });
      writePid(n.pidFile, child.pid);
      started.push(n);
    }
    for (const n of l.nodes) {
      await waitUntil(() => redisPing(n.port), {
        timeoutMs: 60_000,
        what: `redis node ${n.port}`,
        logFile: n.logFile,
      });
    }
    if (fresh) {
      log(`creating a cluster of ${l.masters} masters × ${l.replicas} replica(s) on ${addresses.join(' ')}`);
      await run(
        'redis-cli',
        ['--cluster', 'create', ...addresses, '--cluster-replicas', String(l.replicas), '--cluster-yes'],
        { timeout: 60_000 },
      );
    } else {
      log(`restarting the cluster on ${addresses.join(' ')} from ${l.stateDir}`);
    }
    await waitUntil(() => healthy(ports), { timeoutMs: 60_000, what: 'redis cluster state ok' });
  } catch (error) {
    for (const n of started) {
      await stopPid(readPid(n.pidFile), { timeoutMs: 5_000 });
      removeFile(n.pidFile);
    }
    throw error;
  }
  return result(false);
}

/**
 * SIGTERM every node (each fsyncs its AOF), SIGKILL after the timeout. `removeData: true` also deletes the
 * state folder (AOFs, nodes.conf, logs): nothing is left behind.
 */
export async function stopRedisCluster(options = {}) {
  const l = layout(options);
  const log = options.log ?? makeLog('redis-cluster');
  await Promise.all(
    l.nodes.map(async (n) => {
      const pid = readPid(n.pidFile);
      if (isOurProcess(pid, markers(n))) {
        // A frozen node (freezeMasterAndWaitForFailover) handles SIGTERM only once awake.
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone meanwhile: stopPid below finds it gone
        }
        if (!(await stopPid(pid, { timeoutMs: options.timeoutMs ?? 20_000 })))
          throw new Error(`redis-cluster: pid ${pid} (port ${n.port}) did not exit`);
      }
      removeFile(n.pidFile);
    }),
  );
  if (options.removeData) fs.rmSync(l.stateDir, { recursive: true, force: true });
  log(`stopped${options.removeData ? ` and removed ${l.stateDir}` : ''}`);
}

export async function redisClusterStatus(options = {}) {
  const l = layout(options);
  const nodes = await Promise.all(
    l.nodes.map(async (n) => {
      const pid = readPid(n.pidFile);
      const running = isOurProcess(pid, markers(n));
      const info = running ? await clusterInfo(n.port).catch(() => undefined) : undefined;
      return { address: `${HOST}:${n.port}`, pid: running ? pid : undefined, state: info?.cluster_state };
    }),
  );
  return { stateDir: l.stateDir, nodes };
}

/** The port of the master that serves `slot` now, asked of any live node among ports. */
export async function masterOfSlot(ports, slot) {
  for (const port of ports) {
    const nodes = await clusterNodes(port).catch(() => undefined);
    if (!nodes) continue;
    for (const node of nodes) {
      if (!node.flags.includes('master') || node.flags.includes('fail')) continue;
      for (const range of node.slots) {
        const [from, to = from] = range.split('-').map(Number);
        if (slot >= from && slot <= to) return node.port;
      }
    }
  }
  throw new Error(`no live master serves slot ${slot}`);
}

/**
 * Kills the master on `port` with SIGKILL (a crash) and waits until its replica took over: every other node
 * says the cluster is ok again and no live master is marked failed. Returns the new master's port.
 */
export function killMasterAndWaitForFailover(options, port) {
  return failOver(options, port, async (pid) => {
    await stopPid(pid, { signal: 'SIGKILL', timeoutMs: 5_000 });
  });
}

/**
 * Freezes the master on `port` with SIGSTOP and waits until its replica took over, as above. A frozen node is
 * a host that stopped answering: its clients' connections stay open, and what they sent waits unanswered.
 * It stays frozen; stopRedisCluster wakes it (SIGCONT) to stop it. Returns the new master's port.
 */
export function freezeMasterAndWaitForFailover(options, port) {
  return failOver(options, port, async (pid) => {
    process.kill(pid, 'SIGSTOP');
  });
}

async function failOver(options, port, stopMaster) {
  const l = layout(options);
  const node = l.nodes.find((n) => n.port === port);
  if (!node) throw new Error(`redis-cluster: no node on port ${port}`);
  const pid = readPid(node.pidFile);
  if (!isOurProcess(pid, markers(node))) throw new Error(`redis-cluster: node ${port} is not running`);
  const before = await clusterNodes(port);
  const me = before.find((n) => n.flags.includes('myself'));
  if (!me?.flags.includes('master')) throw new Error(`redis-cluster: node ${port} is not a master`);
  await stopMaster(pid);
  const others = l.nodes
    .filter((n) => n !== node && isOurProcess(readPid(n.pidFile), markers(n)))
    .map((n) => n.port);
  const replicaPort = await waitUntil(
    async () => {
      if (!(await healthy(others))) return undefined;
      const view = await clusterNodes(others[0]);
      const promoted = view.find(
        (n) =>
          n.flags.includes('master') &&
          !n.flags.includes('fail') &&
          n.slots.length > 0 &&
          before.some((b) => b.id === n.id && b.master === me.id),
      );
      return promoted?.port;
    },
    { timeoutMs: 60_000, what: `failover of master ${port}` },
  );
  return replicaPort;
}

/**
 * Sends `signal` to the node on `port` and returns at once: SIGSTOP freezes a replica (it stops acknowledging
 * its master's writes; WAIT counts it out), SIGCONT wakes it, SIGKILL crashes a node without waiting for a
 * failover (which a frozen replica could not make yet).
 */
export function signalNode(options, port, signal) {
  const node = layout(options).nodes.find((n) => n.port === port);
  if (!node) throw new Error(`redis-cluster: no node on port ${port}`);
  const pid = readPid(node.pidFile);
  if (!isOurProcess(pid, markers(node))) throw new Error(`redis-cluster: node ${port} is not running`);
  process.kill(pid, signal);
}

/** The ports of the replicas of the master on `port`, as that master sees them. */
export async function replicasOf(port) {
  const nodes = await clusterNodes(port);
  const me = nodes.find((n) => n.flags.includes('myself'));
  if (!me?.flags.includes('master')) throw new Error(`redis-cluster: node ${port} is not a master`);
  return nodes.filter((n) => n.master === me.id && !n.flags.includes('fail')).map((n) => n.port);
}

/** Starts the killed node again (same port and data): it rejoins as a replica of its successor. */
export async function restartNode(options, port) {
  const l = layout(options);
  const node = l.nodes.find((n) => n.port === port);
  if (!node) throw new Error(`redis-cluster: no node on port ${port}`);
  const child = spawnDaemon('redis-server', clusterNodeArgs(node), {
    logFile: node.logFile,
    cwd: node.dir,
    env: process.env,
  });
  writePid(node.pidFile, child.pid);
  await waitUntil(() => redisPing(node.port), {
    timeoutMs: 60_000,
    what: `redis node ${port}`,
    logFile: node.logFile,
  });
  await waitUntil(() => healthy(l.nodes.map((n) => n.port)), {
    timeoutMs: 60_000,
    what: 'redis cluster state ok',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const basePort = process.argv[3] ? Number(process.argv[3]) : undefined;
  const options = basePort ? { basePort } : {};
  const actions = {
    start: () => startRedisCluster(options),
    stop: () => stopRedisCluster(options),
    status: () => redisClusterStatus(options),
  };
  const action = actions[process.argv[2]];
  if (!action) {
    console.error('usage: node infra/redis-cluster.mjs start|stop|status [basePort]');
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

// A private Redis Cluster for one test file (infra/redis-cluster.mjs: 3 masters + 3 replicas, AOF on, on
// loopback ports of its own), with its target (connect with @va/store/testing connectTarget(cluster.target)),
// the environment a service child process needs to use it, and a crash of a master followed by its replica's
// takeover. stop() leaves nothing behind: the nodes
// are stopped and their folder deleted; a file that forgets is cleaned up when its worker process exits.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  clusterAddresses,
  freezeMasterAndWaitForFailover,
  killMasterAndWaitForFailover,
  masterOfSlot,
  replicasOf,
  restartNode,
  signalNode,
  startRedisCluster,
  stopRedisCluster,
  type RedisClusterOptions,
} from '@va/infra/redis-cluster';
import { CACHE_DIR } from '@va/infra/paths';
import { portOpen } from './ports.js';
import { Command } from 'ioredis';
import type { TestRedis } from './context.js';

export interface TestCluster {
  /** host:port of every node (the value of REDIS_CLUSTER_NODES). */
  nodes: string[];
  ports: number[];
  /** For connectTarget (@va/store/testing) and configs: the cluster, no single-node URL. */
  target: TestRedis;
  /** Environment overrides that point a service child process at this cluster. */
  env: { REDIS_CLUSTER_NODES: string };
  /** Port of the master that serves `key`'s hash slot now. */
  masterOf(key: string): Promise<number>;
  /** SIGKILLs the master on `port` and waits until its replica serves its slots; returns the new master's port. */
  killMaster(port: number): Promise<number>;
  /** SIGSTOPs the master on `port` (a hung host: connections stay open, unanswered) and waits likewise. */
  freezeMaster(port: number): Promise<number>;
  /** Starts a killed node again (it rejoins as a replica). */
  restartNode(port: number): Promise<void>;
  /** Port of the (first) replica of the master on `port`. */
  replicaOf(port: number): Promise<number>;
  /** Signals a node and returns at once (SIGSTOP freezes it, SIGCONT wakes it, SIGKILL crashes it). */
  signal(port: number, signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void;
  /** Stops every node and deletes the cluster's folder. */
  stop(): Promise<void>;
}

const running = new Set<RedisClusterOptions>();
let hooked = false;

/** Kills the nodes of clusters a file did not stop (its worker process is exiting). */
function killLeftovers(): void {
  for (const options of running) {
    for (const dir of fs.existsSync(options.stateDir!) ? fs.readdirSync(options.stateDir!) : []) {
      try {
        const pid = Number(fs.readFileSync(path.join(options.stateDir!, dir, 'redis.pid'), 'utf8'));
        if (pid > 0) process.kill(pid, 'SIGKILL');
      } catch {
        // no pid file or already gone
      }
    }
    fs.rmSync(options.stateDir!, { recursive: true, force: true });
  }
  running.clear();
}

/** A base port with 6 free ports and their bus ports (port + 10000), from TEST_REDIS_CLUSTER_PORT on. */
async function freeBasePort(count: number): Promise<number> {
  const from = Number(process.env.TEST_REDIS_CLUSTER_PORT || 17000);
  const span = Number(process.env.TEST_REDIS_CLUSTER_PORTS || 1000);
  const start = from + 10 * Math.floor((Math.random() * span) / 10);
  for (let n = 0; n < span; n += 10) {
    const base = from + ((start - from + n) % span);
    if (base + count > from + span) continue;
    const ports = Array.from({ length: count }, (_, i) => base + i).flatMap((p) => [p, p + 10_000]);
    const taken = await Promise.all(ports.map((p) => portOpen('127.0.0.1', p, 200)));
    if (!taken.some(Boolean)) return base;
  }
  throw new Error(`no ${count} free ports for a Redis Cluster in ${from}..${from + span - 1}`);
}

/**
 * Starts a fresh cluster of 3 masters and 3 replicas on free loopback ports (TEST_REDIS_CLUSTER_PORT, default
 * 17000, and the 1000 ports after it; bus ports 10000 higher) and waits until it serves every slot.
 */
export async function startTestCluster(): Promise<TestCluster> {
  return (await reserveTestCluster()).started;
}

/**
 * Chooses a fresh cluster's ports and starts it without waiting: `nodes` are its addresses at once, `started`
 * resolves as startTestCluster does. The cluster project's global setup hands the addresses out while the
 * cluster comes up (cluster-status.ts).
 */
export async function reserveTestCluster(): Promise<{ nodes: string[]; started: Promise<TestCluster> }> {
  const basePort = await freeBasePort(6);
  const options: RedisClusterOptions = {
    basePort,
    stateDir: path.join(CACHE_DIR, 'test-clusters', `${basePort}-${crypto.randomBytes(3).toString('hex')}`),
    log: () => undefined,
  };
  running.add(options);
  if (!hooked) {
    hooked = true;
    process.once('exit', killLeftovers);
  }
  return { nodes: clusterAddresses(options), started: startReserved(options) };
}

async function startReserved(options: RedisClusterOptions): Promise<TestCluster> {
  let started;
  try {
    started = await startRedisCluster(options);
  } catch (error) {
    await stopRedisCluster({ ...options, removeData: true }).catch(() => undefined);
    running.delete(options);
    throw error;
  }
  const { nodes, ports } = started;
  const target: TestRedis = { redisUrl: '', redisClusterNodes: nodes };
  return {
    nodes,
    ports,
    target,
    env: { REDIS_CLUSTER_NODES: nodes.join(',') },
    masterOf: (key) => masterOfSlot(ports, new Command('get', [key]).getSlot()),
    killMaster: (port) => killMasterAndWaitForFailover(options, port),
    freezeMaster: (port) => freezeMasterAndWaitForFailover(options, port),
    restartNode: (port) => restartNode(options, port),
    async replicaOf(port) {
      const [replica] = await replicasOf(port);
      if (replica === undefined) throw new Error(`redis-cluster: master ${port} has no replica`);
      return replica;
    },
    signal: (port, signal) => signalNode(options, port, signal),
    async stop() {
      await stopRedisCluster({ ...options, removeData: true });
      running.delete(options);
    },
  };
}

// Types of infra/redis-cluster.mjs for the TypeScript test harness.
export interface RedisClusterOptions {
  /** Holds one folder per node: pid file, redis.log, nodes.conf and the AOF. */
  stateDir?: string;
  /** Nodes listen on basePort, basePort + 1, ...; their cluster bus on port + 10000. */
  basePort?: number;
  masters?: number;
  /** Replicas per master. */
  replicas?: number;
  timeoutMs?: number;
  /** stop only: delete stateDir as well. */
  removeData?: boolean;
  log?: (message: string) => void;
}
export interface ClusterNode {
  id: string;
  port: number;
  flags: string[];
  master: string;
  slots: string[];
}
export declare const CLUSTER_NODE_TIMEOUT_MS: number;
export declare function clusterNodeArgs(options: { port: number; dir: string }): string[];
export declare function clusterInfo(port: number): Promise<Record<string, string>>;
export declare function clusterNodes(port: number): Promise<ClusterNode[]>;
export declare function clusterAddresses(options?: RedisClusterOptions): string[];
export declare function startRedisCluster(
  options?: RedisClusterOptions,
): Promise<{ nodes: string[]; ports: number[]; reused: boolean }>;
export declare function stopRedisCluster(options?: RedisClusterOptions): Promise<void>;
export declare function redisClusterStatus(options?: RedisClusterOptions): Promise<{
  stateDir: string;
  nodes: { address: string; pid: number | undefined; state: string | undefined }[];
}>;
export declare function masterOfSlot(ports: number[], slot: number): Promise<number>;
export declare function killMasterAndWaitForFailover(
  options: RedisClusterOptions,
  port: number,
): Promise<number>;
export declare function freezeMasterAndWaitForFailover(
  options: RedisClusterOptions,
  port: number,
): Promise<number>;
export declare function restartNode(options: RedisClusterOptions, port: number): Promise<void>;
export declare function signalNode(options: RedisClusterOptions, port: number, signal: NodeJS.Signals): void;
export declare function replicasOf(port: number): Promise<number[]>;

// Types of infra/redis.mjs for the TypeScript test harness.
export interface RedisOptions {
  /** Holds the pid file, redis.log and data/ (the AOF). */
  stateDir?: string;
  port?: number;
  /** startRedis: false runs the server without the AOF (it keeps nothing on disk). */
  appendonly?: boolean;
  timeoutMs?: number;
  log?: (message: string) => void;
}
export declare function redisServerArgs(options: {
  port: number;
  dir: string;
  appendonly?: boolean;
}): string[];
export declare function redisCommand(
  port: number,
  args: string[],
  options?: { host?: string; timeoutMs?: number },
): Promise<string>;
export declare function redisPing(port: number, host?: string, timeoutMs?: number): Promise<boolean>;
export declare function startRedis(
  options?: RedisOptions,
): Promise<{ url: string; pid: number; reused: boolean }>;
export declare function stopRedis(options?: RedisOptions): Promise<void>;
export declare function redisStatus(
  options?: RedisOptions,
): Promise<{ running: boolean; ready: boolean; pid: number | undefined; url: string; stateDir: string }>;

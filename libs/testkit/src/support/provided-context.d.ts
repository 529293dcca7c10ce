// What global-setup.ts provides to every integration test: `inject('redisUrl')` is typed.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Comma-separated host:port list of the test Kafka. */
    kafkaBrokers: string;
    /** redis:// URL of the test Redis (shared by all test files: isolate with a key prefix). */
    redisUrl: string;
    /**
     * host:port,... of the `cluster` project's Redis Cluster (cluster-global-setup.ts); undefined in the
     * `integration` project. testEnv() and testRedisTarget() use it when set.
     */
    redisClusterNodes?: string;
    /** The file that says whether that cluster serves yet (cluster-status.ts); with redisClusterNodes. */
    redisClusterStatusFile?: string;
  }
}

export {};

// Types of infra/kafka.mjs for the TypeScript test harness.
export interface KafkaOptions {
  /** Holds server.properties, the pid file, the process log and data/ (log.dirs). */
  stateDir?: string;
  port?: number;
  controllerPort?: number;
  /**
   * The port the broker tells clients to connect to (metadata), default `port`: a test puts a TCP
   * proxy there so that every client connection goes through it.
   */
  advertisedPort?: number;
  /** JVM flags: `server` (default, the stack's long-lived broker) or `light` (a test's broker: less CPU). */
  jvm?: 'server' | 'light';
  heapMin?: string;
  heapMax?: string;
  logLevel?: string;
  timeoutMs?: number;
  log?: (message: string) => void;
}
export declare const KAFKA_RETENTION_MS: number;
export declare function startKafka(
  options?: KafkaOptions,
): Promise<{ brokers: string; pid: number; reused: boolean; startMs: number }>;
export declare function stopKafka(options?: KafkaOptions): Promise<void>;
export declare function kafkaStatus(
  options?: KafkaOptions,
): Promise<{ running: boolean; ready: boolean; pid: number | undefined; brokers: string; stateDir: string }>;

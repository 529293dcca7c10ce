/** Kafka and Redis for one test run, whichever way they were obtained, and how to let go of them. */
export interface TestServers {
  kafkaBrokers: string;
  redisUrl: string;
  /** Human-readable origin, printed once at setup. */
  origin: string;
  release(): Promise<void>;
}

export type ServerSource = 'env' | 'docker' | 'local';

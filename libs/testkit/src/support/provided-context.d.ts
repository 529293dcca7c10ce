// What global-setup.ts provides to every integration test: `inject('redisUrl')` is typed.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Comma-separated host:port list of the test Kafka. */
    kafkaBrokers: string;
    /** redis:// URL of the test Redis (shared by all test files: isolate with a key prefix). */
    redisUrl: string;
  }
}

export {};

// @va/testkit: the synthetic workload (re-exported from @va/workload), Kafka producer helpers, the contract's test vectors
// and the checks of what the store must hold. No vitest and no service here, so a bench or the CLI's
// `produce` can import it; the vitest harness is `@va/testkit/support`, seeding through the ingest
// worker is `@va/testkit/seed`, the query-service probe is `@va/testkit/totals`.
export * from '@va/workload';
export * from './event-producer';
export * from './vectors';
export * from './verify';
export * from './expect-store';
export { freePort } from './support/ports';
export { createTopicsWithLeaders } from './support/topics';
export { listenerPid, localBrokerPid, processCpuSeconds } from './process-cpu';

// @va/testkit: the synthetic workload (re-exported from @va/workload), Kafka producer helpers and the contract's
// test vectors. No vitest here, and no package whose tests import testkit: the checks of what the store must
// hold are `@va/store/testing`, seeding through the ingest worker is `@va/ingest/testing`. The vitest harness
// is `@va/testkit/support`.
export * from '@va/workload';
export * from './event-producer';
export * from './vectors';
export * from './topic-ends';
export { alertTraffic, type AlertTraffic } from './alert-traffic';
export { freePort, portOpen } from './support/ports';
export { createTopicsWithLeaders } from './support/topics';
export { listenerPid, localBrokerPid, processCpuSeconds } from './process-cpu';

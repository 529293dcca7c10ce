// The integration-test harness shared by every package: isolated names and ports on the shared test
// servers (context), service child processes, a private redis-server to crash, waiting and cleanup.
// vitest.config.ts runs global-setup.ts and setup-file.ts from this folder.
export * from './context';
export * from './processes';
export * from './redis-server';
export * from './redis-cluster';
export { track } from './children';
export * from './kafka-proxy';
export * from './redis-proxy';
export * from './private-kafka';
export * from './topics';
export * from './expect-json';

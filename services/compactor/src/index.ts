export * from './jobs';
export { createCompactor, type Compactor, type CompactorDeps, type TickResult } from './compactor';
export { createCompactorMetrics, type CompactorMetrics } from './metrics';
export { loadCompactorSettings, DEFAULT_COMPACTOR_SETTINGS, type CompactorSettings } from './settings';
export { compactionQueueCounts, type QueueCounts } from './queue-status';

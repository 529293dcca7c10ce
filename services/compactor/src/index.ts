// The compactor package's public API: the state of its BullMQ queue, for the CLI's
// `compaction status`, and the replay of usage alerts' webhooks for `alerts replay`. The service itself
// is main.ts; nothing else is imported from outside.
export { COMPACTION_QUEUE } from './jobs';
export { compactionQueueCounts, type QueueCounts } from './queue-status';
export { replayAlerts, type ReplayResult, type ReplaySelection } from './alerts/replay';

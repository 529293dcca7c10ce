// The compactor package's public API: the state of its BullMQ queue, for the CLI's
// `compaction status`. The service itself is main.ts; nothing else is imported from outside.
export { COMPACTION_QUEUE } from './jobs';
export { compactionQueueCounts, type QueueCounts } from './queue-status';

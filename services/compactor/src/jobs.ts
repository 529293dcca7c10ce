/**
 * The compactor's BullMQ vocabulary (pure): queue and scheduler names, job data, job ids.
 * The queue name is shared with the CLI status command through the package's index.
 */

export const COMPACTION_QUEUE = 'compaction';
/** One repeatable scheduler for the whole fleet: upserting it again from another process is a no-op. */
export const TICK_SCHEDULER_ID = 'compaction-tick';
export const TICK_JOB = 'tick';
export const COMPACT_JOB = 'compact';

/** A tick fans out into one compact job per known API. */
export type TickJobData = Record<string, never>;

export interface CompactJobData {
  apiId: string;
  /** Counter generation (`<p>:gen`) the job compacts. */
  generation: number;
  /** Last hour index that may be compacted. */
  closedBound: number;
}

/**
 * One job id per (generation, API): BullMQ ignores an add whose id exists, so a tick never
 * queues a second job for an API whose job is still waiting or running. BullMQ ids may not
 * contain ':' (identifiers may) nor be integers: encode, and prefix.
 */
export const compactJobId = (generation: number, apiId: string): string =>
  `compact-g${generation}-${encodeURIComponent(apiId)}`;

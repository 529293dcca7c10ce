/**
 * The delivery's BullMQ vocabulary (pure): queue name, job data, job ids, job options.
 */
import type { AlertCrossing } from '@va/contracts';
import { type BackoffSettings, DELIVERY_ATTEMPTS } from './backoff';

export const DELIVERY_QUEUE = 'alert-delivery';
export const DELIVER_JOB = 'deliver';

export interface DeliverJobData {
  workspaceId: string;
  endpointId: string;
  crossing: AlertCrossing;
  /** Queued by a replay (a new job with the same webhook-id). */
  replay?: boolean;
}

/**
 * One job per endpoint and alert: BullMQ ignores an add whose id it holds, so a crossing read twice (a
 * stream entry taken over from a killed worker, a crossing detected again by a rebuild) queues nothing new
 * while the first job is kept. BullMQ ids may not contain ':'; endpoint and alert ids never hold '-'.
 */
export const deliverJobId = (endpointId: string, alertId: string): string => `${endpointId}-${alertId}`;
export const replayJobId = (endpointId: string, alertId: string, at: number): string =>
  `${endpointId}-${alertId}-replay-${at}`;

/** Finished jobs (and so their ids) are kept this long: the window in which a repeat queues nothing. */
export const KEEP_FINISHED_S = 7 * 24 * 3600;

export const deliverJobOptions = (jobId: string) => ({
  jobId,
  attempts: DELIVERY_ATTEMPTS,
  backoff: { type: 'alert-backoff' },
  removeOnComplete: { age: KEEP_FINISHED_S, count: 200_000 },
  removeOnFail: { age: KEEP_FINISHED_S, count: 200_000 },
});

export type { BackoffSettings };

/** BullMQ job counts of the compaction queue, for the CLI status command. */
import { Queue } from 'bullmq';
import type { RedisClient } from '@va/store';
import { globalKeys } from '@va/store';
import { COMPACTION_QUEUE } from './jobs';

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export async function compactionQueueCounts(
  connection: RedisClient,
  keyPrefix: string,
): Promise<QueueCounts> {
  const queue = new Queue(COMPACTION_QUEUE, { connection, prefix: globalKeys(keyPrefix).bull });
  try {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
    return {
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
    };
  } finally {
    await queue.close();
  }
}

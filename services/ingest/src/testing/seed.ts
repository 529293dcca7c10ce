/**
 * Test helper (@va/ingest/testing): writes events into Redis through the ingest worker's batch processor (the same
 * validation, dictionaries and applyApiBatch script as production, without Kafka). Each call
 * is its own pseudo-partition, so calls never collide on offsets.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { RedisClient } from '@va/store';
import type { VerificationEvent } from '@va/contracts';
import { BatchProcessor } from '../batch-processor';
import type { Retention } from '@va/core';

export interface SeedOptions {
  prefix: string;
  /** The ingest clock: decides retention and "too far in the future". */
  now: number;
  retention: Retention;
  /** Rows from which a closed bucket's cube is written as a section part (unset: the default). */
  partsMinRows?: number;
}

export async function seedEvents(
  redis: RedisClient,
  events: readonly VerificationEvent[],
  options: SeedOptions,
) {
  if (events.length === 0) return;
  // A cluster client drops nodes it was not told of while it first learns the cluster ('-node'),
  // which the processor takes for a failover and answers with a conflict: start once it is ready.
  if (redis.status !== 'ready') await once(redis, 'ready');
  const processor = new BatchProcessor({
    redis,
    prefix: options.prefix,
    retention: options.retention,
    clock: () => options.now,
    ...(options.partsMinRows !== undefined && { partsMinRows: options.partsMinRows }),
    deadLetter: async (records) => {
      if (records.length > 0) {
        throw new Error(
          `seedEvents: ${records.length} events refused, e.g. ${records[0]!.reason}: ${records[0]!.detail}`,
        );
      }
    },
  });
  const messages = events.map((event, n) => ({
    offset: String(n),
    key: Buffer.from(event.apiId),
    value: Buffer.from(JSON.stringify(event)),
  }));
  const topic = `seed-${randomBytes(6).toString('hex')}`;
  try {
    const outcome = await processor.process(
      { topic, partition: 0, messages, lastOffset: messages.length - 1 },
      null,
    );
    if (outcome.status !== 'applied') throw new Error(`seedEvents: ${outcome.cause}: ${outcome.detail}`);
  } finally {
    processor.detach();
  }
}

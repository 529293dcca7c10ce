/**
 * The batch protocol (core/batch-protocol.ts) on Redis: what the worker, the CLI's rebuild and
 * @va/testkit's seeding construct. All logic lives in the core; this only wires the Redis port.
 */
import type { RedisClient, ReplicaWait } from '@va/store';
import { redisStore } from './adapters/redis-store';
import { BatchProtocol, type BatchProtocolDeps } from './core/batch-protocol';

export type { BatchMessage, PartitionBatch, PreparedBatch, Applied, Conflict } from './core/types';

export interface BatchProcessorDeps extends Omit<BatchProtocolDeps, 'store'> {
  /** A connected client; the caches are dropped whenever its connection closes. */
  redis: RedisClient;
  /** Replicas that must hold each applied batch before the watermark moves past it (INGEST_WAIT_REPLICAS). */
  replicaWait?: ReplicaWait;
  /** Writes per Redis script call (INGEST_MAX_WRITES_PER_CALL; unset: unbounded). */
  maxWritesPerCall?: number;
}

export class BatchProcessor extends BatchProtocol {
  constructor({ redis, replicaWait, maxWritesPerCall, ...deps }: BatchProcessorDeps) {
    const options = {
      ...(replicaWait && { wait: replicaWait }),
      ...(maxWritesPerCall !== undefined && { maxWritesPerCall }),
    };
    super({ ...deps, store: redisStore(redis, deps.prefix, options) });
  }
}

// The ingest package's public API, for code that must treat events exactly as the live worker does:
// the CLI's backfill checks events with the worker's decoder, the CLI's rebuild replays topics with
// the worker itself, and @va/testkit seeds Redis through the batch processor. The rest of src/ is
// the service's own (main.ts wires it); nothing else may be imported from outside the package.
export { DLQ_REASONS, type DlqReason } from './reasons';
export {
  decodeContext,
  decodeEvent,
  MAX_EVENT_BYTES,
  MAX_FUTURE_MS,
  MAX_TAGS,
  type DecodeContext,
  type Decoded,
  type Rejected,
  type ValidEvent,
} from './decode';
export { deadLetterMessage, type DeadLetter } from './dead-letter';
export {
  BatchProcessor,
  type BatchMessage,
  type BatchProcessorDeps,
  type PartitionBatch,
} from './batch-processor';
export type { Offset } from './core/types';
export { createIngestMetrics, type IngestMetrics } from './metrics';
export { createIngestWorker, type IngestWorker, type IngestWorkerDeps } from './worker';
export { workerRedisOptions } from './adapters/redis-options';

/**
 * @va/producer: what a verification service needs to emit events. See README.md.
 */
export { buildEvent, eventProblems, InvalidEventError } from './event';
export type { EventInput, EventProblem, VerificationEvent } from './event';
export { messageKey, MESSAGE_KEYS, type KeyStrategy } from './key';
export { CLIENT_RETRY, createProducer, VerificationProducer } from './producer';
export type { BatchSender, DeliveredBatch, ProducerOptions, RawMessage } from './producer';
export { producerMetrics, type ProducerMetrics } from './metrics';

/**
 * The message key, which decides the partition: the contract's rule (@va/contracts, message-key.ts).
 * `KeyStrategy` is the producer's name for it.
 */
export { messageKey, MESSAGE_KEYS, type MessageKey as KeyStrategy } from '@va/contracts';

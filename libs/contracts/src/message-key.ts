/**
 * The Kafka message key of a verification event, which decides its partition (docs/api.md, "The
 * event"). `apiId` (the default) keeps every event of an API on one partition. `apiId+keyId`
 * (`<apiId>/<keyId>`) spreads one busy API over the partitions by key, so that several ingest workers
 * count it at once. The ingest worker accepts both on the same topic: it never reads the key, and
 * it records what it applied per (API, partition), so an API's events may come from any partition.
 */
import type { VerificationEvent } from './event';

export const MESSAGE_KEYS = ['apiId', 'apiId+keyId'] as const;
export type MessageKey = (typeof MESSAGE_KEYS)[number];

export function messageKey(event: Pick<VerificationEvent, 'apiId' | 'keyId'>, key: MessageKey): string {
  return key === 'apiId' ? event.apiId : `${event.apiId}/${event.keyId}`;
}

/**
 * The message key, which decides the partition. The ingest worker applies the events of one API
 * in partition order, so by default every event of an API goes to one partition (key = apiId).
 * `apiId+keyId` spreads one busy API over the partitions by key; use it only once the ingest
 * workers are known to count one API from several partitions (libs/producer/README.md).
 */
import type { VerificationEvent } from '@va/contracts';

export type KeyStrategy = 'apiId' | 'apiId+keyId';

export function messageKey(event: Pick<VerificationEvent, 'apiId' | 'keyId'>, strategy: KeyStrategy): string {
  return strategy === 'apiId' ? event.apiId : `${event.apiId}/${event.keyId}`;
}

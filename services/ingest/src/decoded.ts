/** What decoding one Kafka message gives: a countable event or a DLQ reason. */
import type { DlqReason } from './reasons';

/** What the counters need of a valid event; dimension values already in dictionary form. */
export interface ValidEvent {
  ok: true;
  workspaceId: string;
  apiId: string;
  keyId: string;
  /** outcome code 0..8 */
  o: number;
  /** event time (unix ms) */
  time: number;
  /** hour index of time */
  hour: number;
  /** identity value "id\nexternalId", or undefined without identity */
  identity: string | undefined;
  /** tag set and region value: "a,b" ("" = no tags), then U+001F and the region when it has one (dictionary-values.ts) */
  tagSet: string;
}

export interface Rejected {
  ok: false;
  reason: DlqReason;
  detail: string;
}

/** One allocation per event on the hot path: the valid event itself, flat. */
export type Decoded = ValidEvent | Rejected;

/**
 * The shapes the ingest core works on (no I/O). "None" is `null` everywhere in TypeScript: no
 * message applied yet (wm, off) or no hour compacted yet (cmp). @va/store speaks `null` too; the
 * Lua scripts' encoding of none (-1) stays inside it (libs/store scripts/none.ts).
 */
import type { IHeaders } from 'kafkajs';
import type { AlertIncrements, ApiIncrements, DictName, KeySpace, TupleCounter } from '@va/store';

/** A Kafka offset (wm, off), or null for "none". */
export type Offset = number | null;

/** An hour index (hours since the epoch) where a compaction point is meant (cmp), or null: none compacted. */
export type HourIndex = number | null;

/** True when `offset` is covered by `mark` (a wm or an off): Redis already holds it. */
export const isCovered = (offset: number, mark: Offset): boolean => mark !== null && offset <= mark;

/** The first offset after `mark` (0 when none). */
export const nextOffset = (mark: Offset): number => (mark === null ? 0 : mark + 1);

export interface BatchMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
  /** Kafka's timestamp of the record (unix ms as a string, as kafkajs gives it). */
  timestamp?: string;
}

export interface PartitionBatch {
  topic: string;
  partition: number;
  /** In offset order; those at or below the believed wm are skipped. */
  messages: readonly BatchMessage[];
  /** The batch's last offset (may exceed the last message's: control records). */
  lastOffset: number;
}

export type ConflictCause = 'off' | 'dict' | 'wm' | 'redis-reset' | 'cmp-retries' | 'retired';

export interface Conflict {
  status: 'conflict';
  cause: ConflictCause;
  detail: string;
}

export const conflict = (cause: ConflictCause, detail: string): Conflict => ({
  status: 'conflict',
  cause,
  detail,
});

export interface Applied {
  status: 'applied';
  /** Events counted by this commit. */
  applied: number;
  /** Redelivered events skipped because Redis already held them. */
  skipped: number;
  deadLettered: number;
}

export interface PreparedApi {
  apiId: string;
  counter: TupleCounter;
  /** cmp the increments were split with; the CAS checks it. */
  cmp: HourIndex;
  increments: ApiIncrements;
  /** The alert counters' increments (alert-increments.ts), with the rules' version they assume. */
  alerts: AlertIncrements;
  /** The values of the codes counted (kept with the batch: the code cache may start over meanwhile). */
  valueOf: (d: DictName, code: number) => string;
}

/** The writes of one slice (classify.ts Slice): one apply per API, each moving off[api] to lastOffset. */
export interface PreparedBatch {
  status: 'prepared';
  topic: string;
  partition: number;
  field: string;
  lastOffset: number;
  epoch: number;
  space: KeySpace;
  now: number;
  /** One apply per API, each moving off[api] to lastOffset; then the wm once. */
  apis: PreparedApi[];
  skipped: number;
  deadLettered: number;
  /**
   * APIs whose events of this batch an earlier commit applied (classify.ts foundApplied): a replica must
   * be shown to hold them (StorePort.confirmApplied) before the watermark moves past them.
   */
  foundApplied: string[];
}

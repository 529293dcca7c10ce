/**
 * The narrow port between the ingest core and the store (Redis in production, an in-memory fake in
 * unit tests). Stateless: every cache lives in the core. Offsets are `Offset`, cmp an `HourIndex` (null = none).
 */
import type {
  AlertIncrements,
  AlertLevelTable,
  AlertRules,
  ApiCodes,
  ApiIncrements,
  KeySpace,
  MissingValues,
} from '@va/store';
import type { HourIndex, Offset } from './types';

export interface ApiClaim {
  apiId: string;
  workspaceId: string;
}

/** One API's write of one batch with its CAS (applyApiBatch). */
export interface PlannedApply {
  apiId: string;
  increments: ApiIncrements;
  /** "<topic>/<partition>" */
  offsetField: string;
  /** off[api] the core believes Redis holds. */
  expectedOff: Offset;
  /** off[api] after the call: the batch's last offset. */
  newOff: number;
  /** cmp the increments were split with. */
  expectedCmp: HourIndex;
  /**
   * The alert counters' increments (docs/alerts.md "Detection"), computed with the rules of their
   * `rulesVersion`: the store refuses them (`rules`) when the API's rules are at another version.
   * Absent: no detection, the version is not checked.
   */
  alerts?: AlertIncrements;
}

export type ApplyOutcome =
  | { status: 'ok' }
  | { status: 'off'; actual: Offset }
  | { status: 'cmp'; actual: HourIndex }
  | { status: 'dict'; dict: string; length: number }
  /** A rebuild retired the API in this generation (it is switching to `generation`): nothing written. */
  | { status: 'retired'; generation: number }
  /** The API's alert rules are at `version`, not the alerts' rulesVersion: nothing written. */
  | { status: 'rules'; version: number };

/** The level table of one API at one version of its rules (@va/store writeAlertLevels). */
export interface AlertLevels {
  apiId: string;
  version: number;
  table: AlertLevelTable;
}

export type WatermarkMove = { ok: true } | { ok: false; actual: Offset };

/** off[api] the core found applied and is about to move the watermark past. */
export interface AppliedOffset {
  apiId: string;
  /** "<topic>/<partition>" */
  offsetField: string;
  off: number;
}

export type ConfirmOutcome = { status: 'ok' } | { status: 'off'; actual: Offset };

export interface StorePort {
  /** The current counter generation (`<p>:gen`). */
  readGeneration(): Promise<number>;
  /** Registers each API unless registered; returns each API's owning workspace, in order. */
  registerApis(claims: readonly ApiClaim[]): Promise<string[]>;
  /** off[api] of one partition and cmp, per API, in order. */
  readProgress(
    space: KeySpace,
    offsetField: string,
    apiIds: readonly string[],
  ): Promise<{ off: Offset[]; cmp: HourIndex[] }>;
  /** Each API's billing zones (IANA names, zone n at index n - 1; none: []), in order; one round trip. */
  readBillingZones(apiIds: readonly string[]): Promise<string[][]>;
  /** Each API's alert rules and their version (0 and none before its first rule), in order. */
  readAlertRules(apiIds: readonly string[]): Promise<AlertRules[]>;
  /**
   * Writes the level tables (which rules have each counter level) of these APIs' rules versions: the apply
   * reads them on a crossing, and refuses alerts (`rules`) while its version has none.
   */
  writeAlertLevels(tables: readonly AlertLevels[]): Promise<void>;
  /** Assigns (or finds) a code for every missing value; returns the codes of those values. */
  assignCodes(space: KeySpace, missing: ReadonlyMap<string, MissingValues>): Promise<Map<string, ApiCodes>>;
  /** One atomic, CAS-checked write per API (pipelined); one outcome per apply, in order. */
  apply(space: KeySpace, applies: readonly PlannedApply[]): Promise<ApplyOutcome[]>;
  /**
   * With a replica wait (INGEST_WAIT_REPLICAS): the replicas hold the writes off[api] stands for, though
   * an earlier commit made them (a write on each API's master, then WAIT: pipeline.ts ReplicaWait). Rejects
   * with ReplicaAckError when too few do; `off` where off[api] is not `off` any more (a failover lost it).
   * Without a replica wait: every one `ok`, no round trip.
   */
  confirmApplied(space: KeySpace, offsets: readonly AppliedOffset[]): Promise<ConfirmOutcome[]>;
  readWatermark(space: KeySpace, topic: string, partition: number): Promise<Offset>;
  /** CAS of the partition watermark. */
  advanceWatermark(
    space: KeySpace,
    topic: string,
    partition: number,
    expected: Offset,
    next: number,
  ): Promise<WatermarkMove>;
  /**
   * The change signal of a committed batch (@va/store change-signal.ts): which APIs it changed, for the
   * query service's live streams. A hint: the core does not wait for it, and a lost one is not an error.
   */
  publishChanges(space: KeySpace, apiIds: readonly string[]): Promise<void>;
  /**
   * Called when the store may have lost what the core cached (a connection or cluster node lost).
   * Returns the function that stops it.
   */
  onReset(listener: () => void): () => void;
}

/** What the worker steers of its Kafka consumer. */
export interface ConsumerControl {
  /** Fetch the partition from `offset` on (the next batch). */
  seek(topic: string, partition: number, offset: number): void;
  pause(topic: string): void;
  resume(topic: string): void;
}

/** Everything one run measured (bench/results/latest.json), and where each part comes from. */
import type { CodeVersion } from './code-version';
import type { ProfileSummary } from './cpuprofile';
import type { DataSetSpec } from './dataset';
import type { MachineInfo } from './machine';
import type { BenchOptions } from './options';
import type { CompactionResult } from './phases/compaction';
import type { FreshnessResult } from './phases/freshness';
import type { IngestResult } from './phases/ingest';
import type { MemoryResult } from './phases/memory';
import type { ProduceResult } from './phases/produce';
import type { RebuildResult } from './phases/rebuild';
import type { CannonRun } from './cannon';
import type { LightUnderHeavyResult } from './phases/light-under-heavy';
import type { ScenarioResult } from './phases/queries';
import type { QuerySettings } from './query-env';

export type LoadAverage = [number, number, number];

export interface BenchResults {
  /** The command line, to run it again. */
  command: string;
  startedAt: string;
  finishedAt: string;
  machine: MachineInfo;
  /** The code measured: commit, uncommitted changes, and a hash of the sources as they were. */
  code: CodeVersion;
  options: BenchOptions;
  dataSet: {
    spec: DataSetSpec;
    prefix: string;
    mediumEvents: number;
    backgroundEvents: number;
    totalEvents: number;
    /** Loaded by an earlier run (--skip-produce): produce, ingest and compaction were not measured now. */
    reused: boolean;
  };
  /** Load average (1, 5, 15 min) before and after each phase: other work on the machine shows here. */
  load: Record<string, { before: LoadAverage; after: LoadAverage }>;
  produce?: ProduceResult;
  ingest?: IngestResult;
  /** The same measurement on live-shaped traffic (all times in the last 30 minutes). */
  ingestLive?: { produce: ProduceResult; ingest: IngestResult };
  compaction?: CompactionResult;
  memory?: MemoryResult;
  queryContext?: { externalId: string; tags: [string, string]; keyId: string; rootKeys?: number };
  /** The query service's limits and log level in the query phase (query-env.ts). */
  querySettings?: QuerySettings;
  /** A bare node:http round trip at 1 connection in the same run (calibration.ts). */
  calibration?: CannonRun;
  /** The query service's GET /health through the same tool: its HTTP floor before any query work. */
  healthRoundTrip?: CannonRun;
  queries: ScenarioResult[];
  lightUnderHeavy?: LightUnderHeavyResult[];
  freshness?: FreshnessResult;
  /** `rebuild --yes` of the data set (only when this run produced it: the topics are deleted after). */
  rebuild?: RebuildResult;
  /** CPU profiles written by --cpu-prof, one per service process and phase. */
  profiles: ProfileResult[];
}

export interface ProfileResult {
  file: string;
  summary: ProfileSummary;
}

/** Goals of the issues. */
export const GOALS = {
  ingestEventsPerSecond: 250_000,
  freshnessP99Ms: 500,
  /** Every query scenario at one connection (#40: its "ends now" form as `npm start` runs the service). */
  queryP50Ms: 2,
  queryP99Ms: 10,
  /** p50 at most this many bare HTTP round trips of the same run (#40). */
  queryP50RoundTrips: 5,
  /** Of the ClickHouse reference p50. */
  referenceShare: 0.5,
  /** p99 of the light query while 10 connections loop on the heavy one (#40). */
  lightUnderHeavyP99Ms: 25,
  /** `rebuild --yes` of the data set, records per second from its start to the switch (#40). */
  rebuildEventsPerSecond: 150_000,
};

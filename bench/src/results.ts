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
import type { ScenarioResult } from './phases/queries';

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
  queryContext?: { externalId: string; tags: [string, string]; keyId: string };
  queries: ScenarioResult[];
  freshness?: FreshnessResult;
  /** CPU profiles written by --cpu-prof, one per service process and phase. */
  profiles: ProfileResult[];
}

export interface ProfileResult {
  file: string;
  summary: ProfileSummary;
}

/** Goals of the issue. */
export const GOALS = {
  ingestEventsPerSecond: 250_000,
  freshnessP99Ms: 500,
  queryP50Ms: 5,
  queryP99Ms: 25,
  /** Of the ClickHouse reference p50. */
  referenceShare: 0.5,
};

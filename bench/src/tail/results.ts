/** What a tail run measured (bench/results/tail-latest.json). */
import type { CompactionResult } from '../phases/compaction';
import type { IngestResult } from '../phases/ingest';
import type { MemoryResult } from '../phases/memory';
import type { ProduceResult } from '../phases/produce';
import type { ScenarioResult } from '../phases/queries';
import type { TailApi, TailSpec } from './dataset';

export interface TailQueryResult extends ScenarioResult {
  api: TailApi;
  /** Events the API holds over the 30 days (its total answer). */
  apiEvents: number;
}

export interface TailResults {
  spec: TailSpec;
  prefix: string;
  baselineMemory: number;
  produce?: ProduceResult;
  ingest?: IngestResult;
  compaction?: CompactionResult;
  memory?: MemoryResult;
  /** APIs registered, and API-hours holding data (members of every API's hour index). */
  apis: number;
  apiHours: number;
  queries: TailQueryResult[];
}

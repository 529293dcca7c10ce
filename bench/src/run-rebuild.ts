/**
 * The rebuild phase: `rebuild --yes` of the data set just loaded, run by the compiled CLI with the
 * services' environment (names.ts serviceEnv), while the topics still hold its events. It runs last:
 * the data set the other phases measure is the one the worker loaded and the compactor sealed, and a
 * rebuild leaves a new generation behind that only the compactor seals (a later --skip-produce run's
 * compaction phase does).
 */
import path from 'node:path';
import { ensureBuilt } from '@va/infra/build';
import type { RunContext } from './context';
import { PHASE_TIMEOUT_MS } from './ingest-topic';
import { serviceEnv, type BenchNames } from './names';
import { measureRebuild, type RebuildResult } from './phases/rebuild';
import { LOG_DIR } from './services';

export async function rebuildDataSet(ctx: RunContext, names: BenchNames): Promise<RebuildResult> {
  await ensureBuilt();
  // The CLI serves no port; the values only satisfy the configuration.
  const ports = { query: 0, ingestMetrics: 0, compactorMetrics: 0, queryMetrics: 0 };
  return measureRebuild({
    redis: ctx.redis,
    env: serviceEnv(ctx.servers, names, ports),
    logFile: path.join(LOG_DIR, `${ctx.runId}.rebuild.cli.log`),
    timeoutMs: PHASE_TIMEOUT_MS,
  });
}

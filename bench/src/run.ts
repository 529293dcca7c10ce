/**
 * One bench run, phase by phase: data set (produce, ingest, compaction), memory, queries, live-shaped
 * ingest, freshness. Each phase starts the service processes it measures and stops them after, so
 * that no phase's background work lands in another's figures.
 */
import type { Redis } from 'ioredis';
import { codeVersion } from './code-version';
import { phase, type RunContext } from './context';
import { backgroundEvents, totalEvents } from './dataset';
import { ingestLive } from './ingest-live';
import { deleteTopics, kafkaClient } from './kafka';
import { loadDataSet } from './load-data-set';
import { log } from './log';
import type { MachineInfo } from './machine';
import { dataSetId, namesFor } from './names';
import type { BenchOptions } from './options';
import { measureMemory } from './phases/memory';
import { summarizeProfiles } from './profiles';
import type { BenchResults, LoadAverage } from './results';
import { freshness } from './run-freshness';
import { queries } from './run-queries';
import { rebuildDataSet } from './run-rebuild';
import { selectScenarios, selectsLightUnderHeavy } from './scenarios';
import type { Servers } from './servers';

export interface RunInput {
  options: BenchOptions;
  servers: Servers;
  redis: Redis;
  runId: string;
  command: string;
  machine: MachineInfo;
  cpuProfDir: string | undefined;
  load: () => LoadAverage;
}

export async function runBench(input: RunInput): Promise<BenchResults> {
  const { options } = input;
  const startedAt = new Date().toISOString();
  const specBase = { seed: options.seed, events: options.events, days: options.days, order: options.order };
  const names = namesFor(dataSetId(specBase));
  const results: BenchResults = {
    command: input.command,
    startedAt,
    finishedAt: '',
    machine: input.machine,
    code: codeVersion(),
    options,
    dataSet: {
      spec: { ...specBase, anchorMs: 0 },
      prefix: names.prefix,
      mediumEvents: options.events,
      backgroundEvents: backgroundEvents(specBase),
      totalEvents: totalEvents(specBase),
      reused: false,
    },
    load: {},
    queries: [],
    profiles: [],
  };
  const ctx: RunContext = {
    ...input,
    kafka: kafkaClient(input.servers.kafkaBrokers),
    results,
    phaseName: 'setup',
  };

  const meta = await loadDataSet(ctx, names);
  results.memory = await phase(ctx, 'memory', () =>
    measureMemory(ctx.redis, names.prefix, meta.baselineMemory),
  );
  if (selectScenarios(options.scenarios).length > 0 || selectsLightUnderHeavy(options.scenarios))
    await phase(ctx, 'queries', () => queries(ctx, names));
  if (options.liveEvents > 0) results.ingestLive = await ingestLive(ctx, names.prefix);
  if (options.freshnessSeconds > 0) {
    results.freshness = await phase(ctx, 'freshness', () => freshness(ctx, names.prefix));
  }
  if (!results.dataSet.reused) {
    if (!options.skipRebuild) results.rebuild = await phase(ctx, 'rebuild', () => rebuildDataSet(ctx, names));
    // The events are in Redis now; the topics would only fill the broker's disk (GBs for the full run).
    await deleteTopics(ctx.kafka, names);
  }
  if (input.cpuProfDir) results.profiles = summarizeProfiles(input.cpuProfDir);
  results.finishedAt = new Date().toISOString();
  log('done');
  return results;
}

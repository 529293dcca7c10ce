/** What every step of a run shares: options, servers, the results so far, and how to start services. */
import type { Redis } from 'ioredis';
import type { Kafka } from 'kafkajs';
import { ensureBuilt } from '@va/infra/build';
import { freePort } from '@va/testkit';
import { codeVersion } from './code-version';
import { kafkaClient } from './kafka';
import { log } from './log';
import { serviceEnv, type BenchNames } from './names';
import type { BenchOptions } from './options';
import type { BenchResults, LoadAverage } from './results';
import type { Servers } from './servers';
import { startService, type Service, type ServiceName } from './services';

export interface RunContext {
  options: BenchOptions;
  servers: Servers;
  redis: Redis;
  kafka: Kafka;
  runId: string;
  cpuProfDir: string | undefined;
  load: () => LoadAverage;
  results: BenchResults;
  /** The phase running now: names CPU profiles (`<phase>.<service>.cpuprofile`). */
  phaseName: string;
}

/** What main.ts hands every kind of run (run.ts RunInput). */
type RunStart = Omit<RunContext, 'kafka' | 'results' | 'phaseName'> &
  Pick<BenchResults, 'command' | 'machine'>;

/** A run that has measured nothing yet, on `dataSet`: its results so far and its context. */
export function startRun(input: RunStart, dataSet: BenchResults['dataSet']): RunContext {
  const results: BenchResults = {
    command: input.command,
    startedAt: new Date().toISOString(),
    finishedAt: '',
    machine: input.machine,
    code: codeVersion(),
    options: input.options,
    dataSet,
    load: {},
    queries: [],
    profiles: [],
  };
  return { ...input, kafka: kafkaClient(input.servers.kafkaBrokers), results, phaseName: 'setup' };
}

export interface PreparedService {
  /** http://127.0.0.1:<port> of its HTTP server (the query API, or /metrics and /health). */
  baseUrl: string;
  /** Its Prometheus metrics (the query service serves them on its internal port, not on the API's). */
  metricsUrl: string;
  /** Spawns the process: measurements call it when their clock starts. */
  start(): Service;
}

/** Picks free ports and the environment of one service against the bench's servers and names. */
export async function prepareService(
  ctx: RunContext,
  name: ServiceName,
  names: BenchNames,
  extra: Record<string, string> = {},
): Promise<PreparedService> {
  const ports = {
    query: await freePort(),
    ingestMetrics: await freePort(),
    compactorMetrics: await freePort(),
    queryMetrics: await freePort(),
  };
  const env = serviceEnv(ctx.servers, names, ports, extra);
  await ensureBuilt(); // the compiled services (services.ts); a no-op when they are current
  const port =
    name === 'query' ? ports.query : name === 'ingest' ? ports.ingestMetrics : ports.compactorMetrics;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${name === 'query' ? ports.queryMetrics : port}/metrics`,
    start: () =>
      startService(name, env, {
        runId: ctx.runId,
        cpuProfDir: ctx.cpuProfDir,
        label: `${ctx.phaseName}.${name}`,
      }),
  };
}

/** Runs one phase, logging it and noting the load average before and after it. */
export async function phase<T>(ctx: RunContext, name: string, work: () => Promise<T>): Promise<T> {
  const before = ctx.load();
  log(`${name} (load average ${before.join(' ')})`);
  ctx.phaseName = name;
  const value = await work();
  ctx.results.load[name] = { before, after: ctx.load() };
  return value;
}

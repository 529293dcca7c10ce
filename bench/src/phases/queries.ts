/**
 * Query latency over HTTP: each scenario is warmed up with a few sequential requests (JIT, the
 * service's dictionary cache), then loaded with autocannon once per connection count for a fixed
 * time. 1 connection is the latency of a request alone; 10 connections show it under concurrent load
 * (on 2 cores, queueing in the service's event loop dominates there).
 *
 * Latencies are taken from autocannon's per-response event (float ms) rather than its histogram,
 * which has 1 ms resolution: too coarse for a 5 ms goal. Per run the bench also records the query
 * service's CPU per request (its own /metrics) and Redis' time per request (INFO commandstats), which
 * splits a request's cost between the two processes.
 */
import autocannon from 'autocannon';
import type { Redis } from 'ioredis';
import { getRowsOk } from '../http';
import { log } from '../log';
import { scrape } from '../prometheus';
import { commandStats, resetStats, slowLog, type CommandStat, type SlowLog } from '../redis-info';
import { scenarioPath, type Scenario, type ScenarioContext } from '../scenarios';
import { summarize, type Summary } from '../stats';

export interface LoadRun {
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  /** Non-2xx answers, errors and timeouts: any is a failed scenario. */
  failures: number;
  /** What the failures were: "HTTP <status>", "error", "timeout" -> count. */
  failureKinds: Record<string, number>;
  latencyMs: Summary;
  serviceCpuMsPerRequest: number;
  redisUsecPerRequest: number;
  /** Sealed sections the service's caches answered (hits) and Redis sent (misses) during the run. */
  sectionCache: { hits: number; misses: number; bytes: number };
  commandStats: CommandStat[];
  slowLog: SlowLog;
}

export interface ScenarioResult {
  name: string;
  title: string;
  /** Absent for the time-range scenarios. */
  referenceP50Ms?: number;
  path: string;
  rows: number;
  responseBytes: number;
  /** X-Precision of the answer ('hour' when absent). */
  precision: string;
  runs: LoadRun[];
}

export interface QueryTarget {
  redis: Redis;
  baseUrl: string;
  /** The service's internal /metrics. */
  metricsUrl: string;
  rootKey: string;
  seconds: number;
  connections: number[];
  warmupRequests: number;
}

async function serviceFigures(metricsUrl: string) {
  const metrics = await scrape(metricsUrl);
  return {
    cpu: metrics.get('process_cpu_seconds_total') ?? 0,
    hits: metrics.get('va_query_section_cache_hits_total') ?? 0,
    misses: metrics.get('va_query_section_cache_misses_total') ?? 0,
    bytes: metrics.get('va_query_section_cache_bytes') ?? 0,
  };
}

async function load(target: QueryTarget, path: string, connections: number): Promise<LoadRun> {
  await resetStats(target.redis);
  const before = await serviceFigures(target.metricsUrl);
  const latencies: number[] = [];
  const failureKinds: Record<string, number> = {};
  const instance = autocannon({
    url: `${target.baseUrl}${path}`,
    connections,
    duration: target.seconds,
    headers: { authorization: `Bearer ${target.rootKey}` },
    timeout: 30,
  });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode === 200) latencies.push(ms);
    else failureKinds[`HTTP ${statusCode}`] = (failureKinds[`HTTP ${statusCode}`] ?? 0) + 1;
  });
  const result = await instance;
  if (result.errors > result.timeouts) failureKinds.error = result.errors - result.timeouts;
  if (result.timeouts > 0) failureKinds.timeout = result.timeouts;
  const after = await serviceFigures(target.metricsUrl);
  const stats = await commandStats(target.redis, 50);
  const requests = result.requests.total;
  const redisUsec = stats.reduce((sum, s) => sum + s.usec, 0);
  return {
    connections,
    seconds: result.duration,
    requests,
    requestsPerSecond: requests / Math.max(result.duration, 0.001),
    failures: result.non2xx + result.errors, // autocannon counts timeouts among the errors
    failureKinds,
    latencyMs: summarize(latencies),
    serviceCpuMsPerRequest: ((after.cpu - before.cpu) * 1000) / Math.max(1, requests),
    redisUsecPerRequest: redisUsec / Math.max(1, requests),
    sectionCache: {
      hits: after.hits - before.hits,
      misses: after.misses - before.misses,
      bytes: after.bytes,
    },
    commandStats: stats.slice(0, 6),
    slowLog: await slowLog(target.redis, 5),
  };
}

export async function runScenario(
  target: QueryTarget,
  scenario: Scenario,
  ctx: ScenarioContext,
): Promise<ScenarioResult> {
  const path = scenarioPath(scenario, ctx);
  let reply = await getRowsOk(target.baseUrl, path, target.rootKey);
  for (let n = 1; n < target.warmupRequests; n++)
    reply = await getRowsOk(target.baseUrl, path, target.rootKey);
  const runs: LoadRun[] = [];
  for (const connections of target.connections) {
    const run = await load(target, path, connections);
    log(
      `query ${scenario.name} c=${connections}: p50 ${run.latencyMs.p50.toFixed(2)} ms, ` +
        `p99 ${run.latencyMs.p99.toFixed(2)} ms, ${Math.round(run.requestsPerSecond)} req/s` +
        (run.failures > 0
          ? `, ${run.failures} FAILED (${Object.entries(run.failureKinds)
              .map(([kind, n]) => `${kind} x${n}`)
              .join(', ')})`
          : ''),
    );
    runs.push(run);
  }
  return {
    name: scenario.name,
    title: scenario.title,
    ...(scenario.referenceP50Ms !== undefined && { referenceP50Ms: scenario.referenceP50Ms }),
    path,
    rows: reply.rows.length,
    responseBytes: reply.bytes,
    precision: reply.precision,
    runs,
  };
}

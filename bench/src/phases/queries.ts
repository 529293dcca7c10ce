/**
 * Query latency over HTTP: each scenario is warmed up with a few sequential requests (JIT, the
 * service's dictionary cache, every root key of the pool), then loaded with autocannon once per
 * connection count for a fixed time (cannon.ts). 1 connection is the latency of a request alone;
 * 10 connections show it under concurrent load (on 2 cores, queueing in the service's event loop
 * dominates there).
 *
 * Per run the bench also records the query service's CPU per request (its own /metrics), Redis' time
 * per request (INFO commandstats) and the Redis round trips and commands per request (INFO stats,
 * redis-info.ts redisTraffic), which splits a request's cost between the two processes. After the runs,
 * one request alone, five times: its round trips and commands as whole numbers (the median).
 */
import type { Redis } from 'ioredis';
import { cannon, failureText, type CannonRun } from '../cannon';
import { getRowsOk } from '../http';
import { log } from '../log';
import { scrape } from '../prometheus';
import {
  commandStats,
  redisTraffic,
  resetStats,
  slowLog,
  trafficBetween,
  type CommandStat,
  type RedisTraffic,
  type SlowLog,
} from '../redis-info';
import { edgeHoursOfDay, scenarioPath, type Scenario, type ScenarioContext } from '../scenarios';

/** A load run; any failure (non-200 answer, error, timeout) fails the scenario. */
export interface LoadRun extends CannonRun {
  serviceCpuMsPerRequest: number;
  redisUsecPerRequest: number;
  /** Redis reads on client sockets (round trips) and commands run (script calls included), per request. */
  redisRoundTripsPerRequest: number;
  redisCommandsPerRequest: number;
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
  /** Hours of the current UTC day the range reads as edge hours (an "ends now" scenario), else absent. */
  edgeHours?: number;
  /** One request alone (median of 5): Redis round trips and commands. */
  alone: RedisTraffic;
  runs: LoadRun[];
}

export interface QueryTarget {
  redis: Redis;
  baseUrl: string;
  /** The service's internal /metrics. */
  metricsUrl: string;
  /** Requests rotate over these (query-env.ts rootKeyPoolSize). */
  rootKeys: string[];
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
  const trafficBefore = await redisTraffic(target.redis);
  const run = await cannon({
    url: `${target.baseUrl}${path}`,
    connections,
    seconds: target.seconds,
    bearer: target.rootKeys,
  });
  const traffic = trafficBetween(trafficBefore, await redisTraffic(target.redis));
  const after = await serviceFigures(target.metricsUrl);
  const stats = await commandStats(target.redis, 50);
  const requests = Math.max(1, run.requests);
  const redisUsec = stats.reduce((sum, s) => sum + s.usec, 0);
  return {
    ...run,
    serviceCpuMsPerRequest: ((after.cpu - before.cpu) * 1000) / requests,
    redisUsecPerRequest: redisUsec / requests,
    redisRoundTripsPerRequest: traffic.reads / requests,
    redisCommandsPerRequest: traffic.commands / requests,
    sectionCache: {
      hits: after.hits - before.hits,
      misses: after.misses - before.misses,
      bytes: after.bytes,
    },
    commandStats: stats.slice(0, 6),
    slowLog: await slowLog(target.redis, 5),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One request with nothing else running, five times: its Redis round trips and commands (medians). */
async function alone(target: QueryTarget, path: string): Promise<RedisTraffic> {
  const samples: RedisTraffic[] = [];
  for (let n = 0; n < 5; n++) {
    const before = await redisTraffic(target.redis);
    await getRowsOk(target.baseUrl, path, target.rootKeys[n % target.rootKeys.length]!);
    samples.push(trafficBetween(before, await redisTraffic(target.redis)));
  }
  return { reads: median(samples.map((s) => s.reads)), commands: median(samples.map((s) => s.commands)) };
}

export async function runScenario(
  target: QueryTarget,
  scenario: Scenario,
  ctx: ScenarioContext,
): Promise<ScenarioResult> {
  const path = scenarioPath(scenario, ctx);
  const warmups = Math.max(target.warmupRequests, target.rootKeys.length);
  let reply = await getRowsOk(target.baseUrl, path, target.rootKeys[0]!);
  for (let n = 1; n < warmups; n++)
    reply = await getRowsOk(target.baseUrl, path, target.rootKeys[n % target.rootKeys.length]!);
  const runs: LoadRun[] = [];
  for (const connections of target.connections) {
    const run = await load(target, path, connections);
    log(
      `query ${scenario.name} c=${connections}: p50 ${run.latencyMs.p50.toFixed(2)} ms, ` +
        `p99 ${run.latencyMs.p99.toFixed(2)} ms, ${Math.round(run.requestsPerSecond)} req/s, ` +
        `Redis ${run.redisRoundTripsPerRequest.toFixed(1)} round trips/request` +
        (run.failures > 0 ? `, ${run.failures} FAILED (${failureText(run.failureKinds)})` : ''),
    );
    runs.push(run);
  }
  const end = new URLSearchParams(path.slice(path.indexOf('?'))).get('end');
  return {
    name: scenario.name,
    title: scenario.title,
    ...(scenario.referenceP50Ms !== undefined && { referenceP50Ms: scenario.referenceP50Ms }),
    path,
    rows: reply.rows.length,
    responseBytes: reply.bytes,
    precision: reply.precision,
    ...(end !== null && { edgeHours: edgeHoursOfDay(Number(end)) }),
    alone: await alone(target, path),
    runs,
  };
}

/**
 * `npm run bench -- --alerts` (#44): usage alerts against the real services, in one run. First ingest
 * throughput on live-shaped traffic with 0 rules and with the planned rules (plan.ts), alternating
 * A/B/A/B (throughput.ts); then crossing-to-webhook latency with an ingest worker, a compactor that
 * delivers the webhooks and a receiver in the bench process (latency.ts). Every name is the run's own
 * (`vabench-alerts-s<seed>…`) and removed afterwards.
 */
import { phase, startRun } from '../context';
import { backgroundEvents, dataSetApis, totalEvents } from '../dataset';
import { log } from '../log';
import { summarizeProfiles } from '../profiles';
import type { BenchResults, LoadAverage } from '../results';
import type { RunInput } from '../run';
import { compareAb, type AbComparison } from './figures';
import { alertLatency, type LatencyResult } from './latency';
import { planRules, rulesPerApi } from './plan';
import { alertThroughput, type ThroughputResult } from './throughput';

export interface AlertsResults {
  rules: number;
  apis: number;
  /** Rules per API and counted definitions (counters) per API, least and most. */
  rulesPerApi: { min: number; max: number };
  countersPerApi: { min: number; max: number };
  throughput: ThroughputResult & { comparison: AbComparison };
  latency: LatencyResult;
  load: { before: LoadAverage; after: LoadAverage };
}

const range = (values: number[]) => ({ min: Math.min(...values), max: Math.max(...values) });

export async function runAlerts(input: RunInput): Promise<{ bench: BenchResults; alerts: AlertsResults }> {
  const { options } = input;
  const base = `vabench-alerts-s${options.seed}`;
  const events = options.liveEvents;
  const ctx = startRun(input, {
    spec: { seed: options.seed, events, days: 0, order: 'random', anchorMs: Date.now() },
    prefix: base,
    mediumEvents: events,
    backgroundEvents: backgroundEvents({ events }),
    totalEvents: totalEvents({ events }),
    reused: false,
  });
  const apis = dataSetApis();
  const rules = planRules(options.alertRules, apis, Date.now());
  const perApi = [...rulesPerApi(rules).values()];
  const before = ctx.load();
  const throughput = await alertThroughput(ctx, base, rules, apis);
  const comparison = compareAb(throughput.runs);
  log(
    `alerts: B/A ${comparison.ratio.toFixed(3)} (${Math.round(comparison.b)} / ${Math.round(comparison.a)})`,
  );
  const latency = await phase(ctx, 'alerts-latency', () => alertLatency(ctx, base, rules, apis));
  log(`alerts: webhook p50 ${latency.latencyMs.p50} ms, p95 ${latency.latencyMs.p95} ms`);
  const bench = ctx.results;
  if (input.cpuProfDir) bench.profiles = summarizeProfiles(input.cpuProfDir);
  bench.finishedAt = new Date().toISOString();
  return {
    bench,
    alerts: {
      rules: rules.length,
      apis: perApi.length,
      rulesPerApi: range(perApi.map((a) => a.rules)),
      countersPerApi: range(perApi.map((a) => a.counters)),
      throughput: { ...throughput, comparison },
      latency,
      load: { before, after: ctx.load() },
    },
  };
}

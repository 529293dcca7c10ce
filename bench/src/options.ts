/**
 * The command line of `npm run bench`. Two profiles share every step and differ in size:
 * the full run is the "medium tenant" (10M events over 90 days), `--quick` a small data
 * set and short phases for checking a change in a few minutes. Any option overrides the profile.
 */
import { parseArgs } from 'node:util';
import { checkTimeZone } from '@va/core';
import { DATA_SET_ORDERS, type DataSetOrder } from './dataset';
import { BILLING_ZONE } from './scenarios';

export interface BenchOptions {
  quick: boolean;
  /** Events of the medium tenant; the 100 background APIs get a tenth of that on top. */
  events: number;
  /** Events are spread uniformly over the `days` days before the data set's anchor (now). */
  days: number;
  seed: number;
  /** Order of the events in the topic (dataset.ts DataSetOrder). */
  order: DataSetOrder;
  /** Reuse the data set already loaded under the same prefix (same events, days, seed). */
  skipProduce: boolean;
  /**
   * The medium API's billing zone, declared before its events (data set and live-shaped ingest) are produced;
   * null (--billing-zone none): none, for an A/B of what counting a zone's edges costs the worker.
   */
  billingZone: string | null;
  /** Query scenarios to run; null = all. */
  scenarios: string[] | null;
  /** Seconds of load per scenario and connection count. */
  seconds: number;
  /** Each scenario runs once per entry: 1 = latency of one client alone, 10 = under concurrent load. */
  connections: number[];
  /** Medium-tenant events of the live-shaped ingest measurement (times in the last 30 min); 0 skips it. */
  liveEvents: number;
  /** Seconds of steady live traffic for the freshness measurement; 0 skips it. */
  freshnessSeconds: number;
  /** Events/s of that live traffic. */
  freshnessRate: number;
  /**
   * The query service runs with the shipped limits (QUERY_RATE_LIMIT, QUERY_MAX_CONCURRENT) and log
   * level, as `npm start` runs it; false (--no-limits) turns both limits off and logs warnings only.
   */
  limits: boolean;
  /** Leave out the rebuild phase (`rebuild --yes` of the data set after the other phases). */
  skipRebuild: boolean;
  /** Write V8 CPU profiles of the service processes into .cache/bench/prof/<run>/. */
  cpuProf: boolean;
  /** Leave the bench's Redis (and a Kafka it started) running at the end. */
  keepServers: boolean;
  /**
   * The tail data set of #41 instead of the medium tenant (tail/run.ts): many small APIs, measured for
   * ingest, sealing, memory per family and queries on a median and a top-10 API.
   */
  tail: boolean;
  /** Events of the tail data set (3,000,000). */
  tailEvents: number;
  /**
   * The live-updates run of #44 instead (stream/run.ts): open streams on one query service while live
   * traffic flows at --rate; produce-to-push latency, the service's CPU and memory per stream.
   */
  stream: boolean;
  /** Open streams (1,000), the APIs they spread over (50), and seconds of counted traffic (30). */
  streams: number;
  streamApis: number;
  streamSeconds: number;
  /**
   * The alerts run of #44 instead (alerts/run.ts): live-shaped ingest without and with --alert-rules
   * "each identity" rules, A/B/A/B, then crossing-to-webhook latency at --rate for --alerts-seconds.
   */
  alerts: boolean;
  /** Rules of the B runs and of the latency measurement (10,000), and its seconds of counted traffic (60). */
  alertRules: number;
  alertsSeconds: number;
  /**
   * 'quick' or 'full' when the profile ran as defined (its results are published), with '-reused'
   * after --skip-produce (no produce or ingest figures); else 'custom'.
   */
  profile: 'quick' | 'full' | 'quick-reused' | 'full-reused' | 'tail' | 'stream' | 'alerts' | 'custom';
}

export const USAGE = `usage: npm run bench -- [options]
  --quick                 small data set (500k events over 30 days) and short phases (a few minutes)
  --events N              events of the medium tenant (full: 10000000, quick: 500000); +10% background
  --days D                days of history (full: 90, quick: 30)
  --seed S                generator seed (1)
  --order time|random     events in time order, as a topic holds its history (default), or with
                          times drawn independently (every batch spreads over the whole span)
  --skip-produce          reuse the data set loaded by an earlier run with the same events/days/seed
  --billing-zone Z|none   the medium API's declared billing zone (${BILLING_ZONE}); none: no zone declared
  --live-events N         events of the live-shaped ingest measurement (full: 2000000, quick: 300000; 0 = skip)
  --scenario NAME         run only this query scenario (repeatable); skips the live ingest and the
                          freshness measurements unless --live-events / --freshness-seconds is given
  --seconds S             seconds per scenario and connection count (full: 10, quick: 3)
  --connections LIST      connection counts per scenario, comma-separated (1,10)
  --freshness-seconds S   seconds of live traffic for the freshness probes (full: 60, quick: 20; 0 = skip)
  --rate R                events/s of that live traffic (10000)
  --no-limits             query service without its per-root-key limits and with LOG_LEVEL=warn (the
                          default runs it as \`npm start\` does: shipped limits and log level)
  --skip-rebuild          leave out \`rebuild --yes\` of the data set (run last, only after a produce)
  --cpu-prof              CPU profiles of the service processes into .cache/bench/prof/<run>/
  --keep-servers          leave the bench Redis (and a Kafka the bench started) running
  --tail                  the tail data set instead (#41): 3,000,000 events over 30 days, 5,000 APIs in
                          1,000 workspaces; ingest, sealing, memory per family, queries on small APIs
  --tail-events N         events of the tail data set (3000000; e.g. 300000 for a quick look)
  --stream                live updates instead (#44): --streams SSE streams on one query service over
                          --stream-apis APIs while --rate events/s flow for 5 + --stream-seconds s;
                          produce-to-push latency, the service's CPU, RSS per stream, stream reads/s
  --streams N, --stream-apis A, --stream-seconds S   (1000, 50, 30; e.g. 100 and 10 for a quick look)
  --alerts                usage alerts instead (#44): live-shaped ingest (--live-events) with 0 and with
                          --alert-rules "each identity" rules, A/B/A/B; then crossing-to-webhook latency
                          at --rate events/s for 5 + --alerts-seconds s, webhooks to a receiver in the bench
  --alert-rules N, --alerts-seconds S   (10000, 60)
Environment: KAFKA_BROKERS (default: the stack's broker, started if needed), BENCH_REDIS_URL (default:
a dedicated redis-server on BENCH_REDIS_PORT, 6390, data in .cache/bench/redis, or redis-<port> for another port).`;

export class UsageError extends Error {}

function positiveInt(raw: string | undefined, name: string, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min)
    throw new UsageError(`--${name} must be an integer >= ${min}`);
  return value;
}

export function parseOptions(args: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      quick: { type: 'boolean', default: false },
      events: { type: 'string' },
      days: { type: 'string' },
      seed: { type: 'string' },
      order: { type: 'string' },
      'billing-zone': { type: 'string' },
      'skip-produce': { type: 'boolean', default: false },
      scenario: { type: 'string', multiple: true },
      seconds: { type: 'string' },
      connections: { type: 'string' },
      'freshness-seconds': { type: 'string' },
      'live-events': { type: 'string' },
      rate: { type: 'string' },
      'no-limits': { type: 'boolean', default: false },
      'skip-rebuild': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'keep-servers': { type: 'boolean', default: false },
      tail: { type: 'boolean', default: false },
      'tail-events': { type: 'string' },
      stream: { type: 'boolean', default: false },
      streams: { type: 'string' },
      'stream-apis': { type: 'string' },
      'stream-seconds': { type: 'string' },
      alerts: { type: 'boolean', default: false },
      'alert-rules': { type: 'string' },
      'alerts-seconds': { type: 'string' },
    },
  });
  if (values.help) return 'help';
  // Only these leave the measured profile as it is; any other option makes the run 'custom'.
  const neutral = new Set(['quick', 'skip-produce', 'keep-servers', 'help', 'tail', 'stream', 'alerts']);
  const custom = Object.entries(values).some(
    ([name, value]) => value !== undefined && value !== false && !neutral.has(name),
  );
  const quick = values.quick ?? false;
  const tail = values.tail ?? false;
  if (values['tail-events'] !== undefined && !tail) throw new UsageError('--tail-events needs --tail');
  const stream = values.stream ?? false;
  for (const name of ['streams', 'stream-apis', 'stream-seconds'] as const)
    if (values[name] !== undefined && !stream) throw new UsageError(`--${name} needs --stream`);
  const alerts = values.alerts ?? false;
  for (const name of ['alert-rules', 'alerts-seconds'] as const)
    if (values[name] !== undefined && !alerts) throw new UsageError(`--${name} needs --alerts`);
  if ([stream, tail, alerts].filter(Boolean).length > 1)
    throw new UsageError('--stream, --tail and --alerts are separate runs');
  const scenarios = values.scenario?.length ? values.scenario : null;
  const connections = (values.connections ?? '1,10')
    .split(',')
    .filter(Boolean)
    .map((c) => positiveInt(c, 'connections', 1));
  if (connections.length === 0) throw new UsageError('--connections needs at least one count');
  const defaultFreshness = scenarios ? 0 : quick ? 20 : 60;
  const defaultLive = scenarios ? 0 : quick ? 300_000 : 2_000_000;
  const zoneArg = values['billing-zone'] ?? BILLING_ZONE;
  const zone = zoneArg === 'none' ? null : checkTimeZone(zoneArg, '--billing-zone');
  if (zone && !zone.ok) throw new UsageError(`${zone.message}, or none`);
  const billingZone = zone ? zoneArg : null;
  const order = (values.order ?? 'time') as DataSetOrder;
  if (!DATA_SET_ORDERS.includes(order)) throw new UsageError('--order must be time or random');
  return {
    quick,
    events: positiveInt(values.events, 'events', quick ? 500_000 : 10_000_000),
    days: positiveInt(values.days, 'days', quick ? 30 : 90),
    seed: positiveInt(values.seed, 'seed', 1, 0),
    order,
    skipProduce: values['skip-produce'] ?? false,
    billingZone,
    scenarios,
    seconds: positiveInt(values.seconds, 'seconds', quick ? 3 : 10),
    connections,
    liveEvents: positiveInt(values['live-events'], 'live-events', defaultLive, 0),
    freshnessSeconds: positiveInt(values['freshness-seconds'], 'freshness-seconds', defaultFreshness, 0),
    freshnessRate: positiveInt(values.rate, 'rate', 10_000),
    limits: !(values['no-limits'] ?? false),
    skipRebuild: values['skip-rebuild'] ?? false,
    cpuProf: values['cpu-prof'] ?? false,
    keepServers: values['keep-servers'] ?? false,
    tail,
    tailEvents: positiveInt(values['tail-events'], 'tail-events', 3_000_000),
    stream,
    streams: positiveInt(values.streams, 'streams', 1_000),
    streamApis: positiveInt(values['stream-apis'], 'stream-apis', 50),
    streamSeconds: positiveInt(values['stream-seconds'], 'stream-seconds', 30),
    alerts,
    alertRules: positiveInt(values['alert-rules'], 'alert-rules', 10_000),
    alertsSeconds: positiveInt(values['alerts-seconds'], 'alerts-seconds', 60),
    profile:
      custom || ((tail || stream || alerts) && (quick || values['skip-produce']))
        ? 'custom'
        : tail
          ? 'tail'
          : stream
            ? 'stream'
            : alerts
              ? 'alerts'
              : `${quick ? 'quick' : 'full'}${values['skip-produce'] ? '-reused' : ''}`,
  };
}

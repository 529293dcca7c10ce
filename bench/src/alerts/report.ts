/** The alerts run as Markdown (bench/results/alerts-latest.md, and alerts.md when run as defined). */
import { SLOW_LOG_USEC, type SlowEntry, type SlowLog } from '../redis-info';
import { commandStatsTable, int, loadTable, mark, ms, profileTables, table } from '../report-format';
import type { BenchResults } from '../results';
import { round } from '../stats';
import { ALERT_GOALS, usPerEvent } from './figures';
import type { AlertsResults } from './run';

const load = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
const entry = (e: SlowEntry | undefined) => (e ? `${ms(e.usec / 1000)} ms ${e.command}` : '-');
const slow = (log: SlowLog) => `${int(log.total)} (slowest Lua call ${entry(log.slowestScript)})`;

export function alertsReport(bench: BenchResults, a: AlertsResults): string {
  const m = bench.machine;
  const t = a.throughput;
  const ab = t.comparison;
  const l = a.latency;
  const w = l.latencyMs;
  const events = t.runs[0]?.ingest.events ?? 0;
  const lines = [
    `# Usage alerts (#44): ${bench.startedAt}`,
    '',
    `\`${bench.command}\` at commit ${bench.code.commit} (${bench.code.changedFiles} changed files), ${bench.startedAt.slice(0, 10)}.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, Redis ${m.redis}; **load average ${load(a.load.before)} before, ${load(a.load.after)} after**.`,
    `Rules: ${int(a.rules)} "each identity" rules over the data set's ${a.apis} APIs (${a.rulesPerApi.min}–${a.rulesPerApi.max} per API, ` +
      `${a.countersPerApi.max} counted definitions per API: month and day × every outcome, VALID, RATE_LIMITED or USAGE_EXCEEDED; ` +
      'levels L, 10 L, 100 L with L = 500, 1,000, … (50, 100, … for the refusals): bench/src/alerts/plan.ts).',
    `Throughput: ${int(events)} live-shaped events (times in the last 30 min) produced once, ingested ${t.runs.length} times ` +
      `by one worker, ${t.runs.map((r) => r.label).join('/')} (A: 0 rules, B: the rules; each run its own prefix and consumer group).`,
    `Latency: ${int(l.targetRate)} events/s of the data set's live shape for 5 + ${l.seconds} s (first 5 s not timed), ` +
      `ingest worker and compactor as \`npm start\` runs them (ALERTS_ALLOW_PRIVATE_URLS=on), ${l.endpoints} endpoints ` +
      '(one per workspace) at a receiver in the bench process.',
    '',
    ...table(
      ['measure', 'result', 'goal', 'met'],
      [
        [
          `ingest, live-shaped: ${int(a.rules)} rules (B) / 0 rules (A)`,
          `${round(ab.ratio)} (B ${int(ab.b)} events/s, A ${int(ab.a)} events/s; per pair ${ab.pairRatios.map((r) => round(r)).join(', ')})`,
          `≥ ${ALERT_GOALS.throughputRatio}`,
          mark(ab.ratio >= ALERT_GOALS.throughputRatio),
        ],
        [
          `crossing to webhook at ${int(l.targetRate)} events/s (achieved ${int(l.achievedRate)})`,
          `p50 ${int(w.p50)} ms, p95 ${int(w.p95)} ms, p99 ${int(w.p99)} ms, max ${int(w.max)} ms (${int(w.count)} crossings timed)`,
          `p95 ≤ ${int(ALERT_GOALS.webhookP95Ms)} ms`,
          mark(w.p95 <= ALERT_GOALS.webhookP95Ms),
        ],
        [
          'webhook ids received / crossings expected',
          `${int(l.received)} / ${int(l.expected)} (${int(l.missing)} missing, ${int(l.unexpected)} unexpected, ${int(l.repeats)} repeats, ${int(l.malformed)} malformed; ${int(l.attempts)} attempts)`,
          'equal',
          mark(l.missing === 0 && l.unexpected === 0 && l.malformed === 0),
        ],
      ],
    ),
    '',
    `Each run (CPU per event applied; Redis slow log: commands over ${SLOW_LOG_USEC / 1000} ms on Redis's thread):`,
    '',
    ...table(
      ['run', 'rules', 'events/s', 'worker CPU', 'Redis CPU', 'slow log', 'crossings', 'load before → after'],
      t.runs.map((r, n) => {
        const i = r.ingest;
        const phase = bench.load[`ingest-${r.label}${n + 1}`];
        return [
          `${r.label}${n + 1}`,
          int(r.rules),
          `${int(i.eventsPerSecond)} (${int(i.events)} in ${round(i.seconds)} s, ${int(i.batches)} batches)`,
          `${round(usPerEvent(i.workerCpuSeconds, i.events))} µs/event`,
          `${round(usPerEvent(i.redisCpuSeconds, i.events))} µs/event`,
          slow(i.slowLog),
          int(r.crossings),
          phase ? `${load(phase.before)} → ${load(phase.after)}` : '-',
        ];
      }),
    ),
    '',
    `Crossing to webhook in two parts: send to detection (the webhook's detectedAt, the clock of the batch that ` +
      `crossed) p50 ${int(l.detectMs.p50)} ms, p95 ${int(l.detectMs.p95)} ms; detection to arrival p50 ` +
      `${int(l.deliverMs.p50)} ms, p95 ${int(l.deliverMs.p95)} ms. Delivery log: ${Object.entries(
        l.deliveryLog.outcomes,
      )
        .map(([outcome, n]) => `${int(n)} ${outcome}`)
        .join(', ')}, ${int(l.deliveryLog.retries)} retries` +
      (l.deliveryLog.errors.length > 0 ? ` (errors: ${l.deliveryLog.errors.join('; ')})` : '') +
      '.',
    '',
    `Latency phase: produce ack p50 ${int(l.produceAckMs.p50)} ms, p99 ${int(l.produceAckMs.p99)} ms; last webhook ${round(l.drainSeconds)} s ` +
      `after the last send; CPU s: ingest worker ${round(l.cpuSeconds.worker)}, compactor ${round(l.cpuSeconds.compactor)}, ` +
      `Redis ${round(l.cpuSeconds.redis)}, bench process ${round(l.cpuSeconds.bench)}; slow log ${slow(l.slowLog)}.` +
      (l.missingIds.length > 0 ? ` Missing, first: ${l.missingIds.join(', ')}.` : ''),
    '',
  ];
  for (const [n, r] of t.runs.entries()) {
    const name = `${r.label}${n + 1}`;
    if (r.ingest.slowLog.total > 0) {
      lines.push(`Slowest commands of ${name}:`, '');
      lines.push(
        ...table(
          ['ms', 'command'],
          r.ingest.slowLog.slowest.map((e) => [ms(e.usec / 1000), e.command]),
        ),
        '',
      );
    }
    lines.push(
      `Redis commands of ${name} (INFO commandstats, top by time; a script's own calls included):`,
      '',
    );
    lines.push(...commandStatsTable(r.ingest.commandStats, r.ingest.events), '');
  }
  lines.push(...profileTables(bench.profiles));
  lines.push(...loadTable(bench.load));
  return `${lines.join('\n')}\n`;
}

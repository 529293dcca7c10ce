/** The query part of the report: calibration, the scenarios' latency, their cost per request, light-under-heavy. */
import { failureText } from './cannon';
import type { LoadRun, ScenarioResult } from './phases/queries';
import { int, mark, ms, table } from './report-format';
import { GOALS, type BenchResults } from './results';
import { round } from './stats';

/** p50 as a multiple of the bare round trip's p50 (NaN without a calibration). */
export const roundTrips = (p50: number, calibrationP50: number | undefined): number =>
  calibrationP50 === undefined || !(calibrationP50 > 0) ? Number.NaN : p50 / calibrationP50;

/** The issue's latency goal for one scenario at one connection; a round-trip multiple that is NaN is not judged. */
export function latencyGoalMet(run: Pick<LoadRun, 'failures' | 'latencyMs'>, multiple: number): boolean {
  return (
    run.failures === 0 &&
    run.latencyMs.p50 <= GOALS.queryP50Ms &&
    run.latencyMs.p99 <= GOALS.queryP99Ms &&
    (Number.isNaN(multiple) || multiple <= GOALS.queryP50RoundTrips)
  );
}

const name = (q: ScenarioResult) =>
  `${q.name}${q.precision !== 'hour' ? ` (X-Precision: ${q.precision})` : ''}`;

function settingsLine(r: BenchResults): string[] {
  const s = r.querySettings;
  const c = r.calibration;
  const parts: string[] = [];
  if (s) {
    parts.push(
      s.rateLimit === 0 && s.maxConcurrent === 0
        ? `Query service without limits (--no-limits), LOG_LEVEL ${s.logLevel}.`
        : `Query service as \`npm start\` runs it: per root key QUERY_RATE_LIMIT ${s.rateLimit} per ${s.rateWindowMs} ms ` +
            `and QUERY_MAX_CONCURRENT ${s.maxConcurrent}, LOG_LEVEL ${s.logLevel}; the load rotates over ` +
            `${r.queryContext?.rootKeys ?? 1} root keys, so none reaches a limit (a 429 counts as a failure).`,
    );
  }
  const h = r.healthRoundTrip;
  if (c) {
    parts.push(
      `Calibration, a bare node:http keep-alive GET at c=1 in this run: p50 ${ms(c.latencyMs.p50)} ms, ` +
        `p99 ${ms(c.latencyMs.p99)} ms, ${int(c.requestsPerSecond)} req/s` +
        (h
          ? `; the query service's /health the same way: p50 ${ms(h.latencyMs.p50)} ms (${round(roundTrips(h.latencyMs.p50, c.latencyMs.p50))}×), p99 ${ms(h.latencyMs.p99)} ms.`
          : '.'),
    );
  }
  return parts.length > 0 ? [parts.join(' '), ''] : [];
}

function latencyTable(r: BenchResults): string[] {
  const conns = r.queries[0]!.runs.map((run) => run.connections);
  const calibration = r.calibration?.latencyMs.p50;
  const header = ['scenario', 'rows'];
  for (const c of conns) header.push(`c=${c} p50 ms`, `c=${c} p99 ms`, `c=${c} req/s`);
  header.push(
    `c=${conns[0]} p50 / round trip`,
    'ClickHouse p50',
    'aim (half)',
    `p50≤${GOALS.queryP50Ms} & ≤${GOALS.queryP50RoundTrips}× & p99≤${GOALS.queryP99Ms} (c=${conns[0]})`,
  );
  const rows = r.queries.map((q) => {
    const row = [name(q), String(q.rows)];
    for (const run of q.runs) {
      const failed = run.failures > 0 ? ` (${run.failures} failed)` : '';
      row.push(ms(run.latencyMs.p50), ms(run.latencyMs.p99), `${int(run.requestsPerSecond)}${failed}`);
    }
    const first = q.runs[0]!;
    const multiple = roundTrips(first.latencyMs.p50, calibration);
    const reference = q.referenceP50Ms;
    row.push(
      Number.isNaN(multiple) ? '-' : `${round(multiple)}×`,
      reference === undefined ? '-' : ms(reference),
      reference === undefined
        ? '-'
        : `${mark(first.latencyMs.p50 <= reference * GOALS.referenceShare)} (${ms(reference * GOALS.referenceShare)})`,
      mark(latencyGoalMet(first, multiple)),
    );
    return row;
  });
  const edges = r.queries.flatMap((q) => (q.edgeHours === undefined ? [] : [q.edgeHours]));
  const edgeNote =
    edges.length === 0
      ? []
      : [
          `The \`-ends-now\` forms end at the time they ran, reading ${Math.min(...edges)}–${Math.max(...edges)} ` +
            'hours of the current UTC day as edge hours (a run early in the UTC day reads few).',
          '',
        ];
  return [...table(header, rows), '', ...edgeNote];
}

/** Cost per request at the first connection count, and of one request alone. */
function costTable(r: BenchResults): string[] {
  const c = r.queries[0]!.runs[0]!.connections;
  const rows = r.queries.map((q) => {
    const run = q.runs[0]!;
    const cache = run.sectionCache;
    return [
      q.name,
      ms(run.serviceCpuMsPerRequest),
      int(run.redisUsecPerRequest),
      run.redisRoundTripsPerRequest === undefined
        ? '-'
        : `${ms(run.redisRoundTripsPerRequest)} / ${ms(run.redisCommandsPerRequest)}`,
      q.alone ? `${q.alone.reads} / ${q.alone.commands}` : '-',
      cache ? `${int(cache.hits)} / ${int(cache.misses)}` : '-',
    ];
  });
  return [
    `Per request (c=${c}): service CPU, Redis time, Redis round trips and commands (INFO stats; script calls ` +
      'included), the same for one request alone, sections from the cache / from Redis:',
    '',
    ...table(
      [
        'scenario',
        'service CPU ms',
        'Redis µs',
        'round trips / commands',
        'alone: round trips / commands',
        'sections cached / sent',
      ],
      rows,
    ),
    '',
  ];
}

function lightUnderHeavyTable(r: BenchResults): string[] {
  const runs = r.lightUnderHeavy ?? [];
  if (runs.length === 0) return [];
  const rows = runs.map((x) => [
    `${x.heavyConnections} on ${x.heavyRootKeys} root key${x.heavyRootKeys === 1 ? '' : 's'}`,
    ms(x.light.latencyMs.p50),
    ms(x.light.latencyMs.p99),
    `${int(x.light.requestsPerSecond)}${x.light.failures > 0 ? ` (${failureText(x.light.failureKinds)})` : ''}`,
    [`${int(x.heavy.latencyMs.count)} × 200`, failureText(x.heavy.failureKinds)].filter(Boolean).join(', '),
    mark(x.light.failures === 0 && x.light.latencyMs.p99 < GOALS.lightUnderHeavyP99Ms),
  ]);
  return [
    `Light under heavy: \`${runs[0]!.lightPath}\` at c=1 while heavy connections loop on \`${runs[0]!.heavyPath}\`:`,
    '',
    ...table(
      [
        'heavy connections',
        'light p50 ms',
        'light p99 ms',
        'light req/s',
        'heavy answers',
        `p99 < ${GOALS.lightUnderHeavyP99Ms} ms`,
      ],
      rows,
    ),
    '',
  ];
}

export function queryTables(r: BenchResults): string[] {
  const lines = settingsLine(r);
  if (r.queries.length > 0) lines.push(...latencyTable(r), ...costTable(r));
  lines.push(...lightUnderHeavyTable(r));
  return lines;
}

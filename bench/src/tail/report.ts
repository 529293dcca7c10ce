/** The Markdown of a tail run (bench/results/tail-latest.md, printed at the end). */
import { bytes, commandStatsTable, int, mark, ms, profileTables, table } from '../report-format';
import type { BenchResults } from '../results';
import { round } from '../stats';
import type { TailResults } from './results';

/** The goals for the tail (#41). */
export const TAIL_GOALS = {
  ingestEventsPerSecond: 150_000,
  /** Fully sealed within this many seconds of being counted. */
  sealedWithinSeconds: 120,
  bytesPerEvent: 16,
  queryP50Ms: 2,
  queryP99Ms: 10,
};

export function tailReport(bench: BenchResults, t: TailResults): string {
  const m = bench.machine;
  const lines: string[] = [
    `# Tail benchmark (#41): ${bench.startedAt}`,
    '',
    `Command: \`${bench.command}\``,
    '',
    `Code: commit ${bench.code.commit} with ${bench.code.changedFiles} changed files, sources ${bench.code.sourceHash}.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, Redis ${m.redis}.`,
    `Data set \`${t.prefix}\`: ${int(t.spec.events)} events over 30 days in time order, 5,000 APIs in 1,000 ` +
      `workspaces (Zipf s = 1.1), seed ${t.spec.seed}; ${int(t.apis)} APIs received events, ${int(t.apiHours)} API-hours hold data.`,
    '',
  ];
  const rows: string[][] = [];
  if (t.produce)
    rows.push(['produce (kafkajs, no compression)', `${int(t.produce.eventsPerSecond)} events/s`, '', '']);
  if (t.ingest) {
    const i = t.ingest;
    const perEvent = (s: number | null) =>
      s === null ? '-' : `${round((s * 1e6) / Math.max(1, i.events))} µs/event`;
    // Until visible: from the worker's start to its last event applied. The tail's batches are few and
    // long (a partition's whole backlog spans thousands of APIs), so the first applied event comes late and
    // "first to last applied" alone says little.
    const visibleSeconds = i.startupSeconds + i.seconds;
    const rate = i.events / Math.max(visibleSeconds, 0.001);
    rows.push([
      'ingest, one worker, until visible',
      `${int(rate)} events/s (${int(i.events)} events visible ${round(visibleSeconds)} s after the worker's start, ` +
        `${round(i.startupSeconds)} s of it to the first applied; ${int(i.batches)} batches of ${round(i.meanBatchSeconds)} s; ` +
        `worker CPU ${perEvent(i.workerCpuSeconds)}, Redis CPU ${perEvent(i.redisCpuSeconds)}, Kafka CPU ${perEvent(i.kafkaCpuSeconds)})`,
      `${int(TAIL_GOALS.ingestEventsPerSecond)} events/s`,
      mark(rate >= TAIL_GOALS.ingestEventsPerSecond),
    ]);
  }
  if (t.compaction) {
    const c = t.compaction;
    const sealed = c.seconds + c.sealSeconds;
    rows.push([
      'compaction and sealing, until fully sealed',
      `${round(sealed)} s (${int(c.hoursCompacted)} API-hours compacted in ${round(c.seconds)} s, ` +
        `${round(c.hoursPerSecond)} hours/s; ${int(c.bucketsSealed ?? 0)} buckets sealed, ${round(c.sealBucketsPerSecond ?? 0)} buckets/s; ` +
        `compactor CPU ${round(c.compactorCpuSeconds)} s, Redis CPU ${round(c.redisCpuSeconds)} s)`,
      `≤ ${TAIL_GOALS.sealedWithinSeconds} s`,
      mark(sealed <= TAIL_GOALS.sealedWithinSeconds),
    ]);
  }
  if (t.memory) {
    const mem = t.memory;
    const perEvent = mem.dataSetBytes / Math.max(1, t.spec.events);
    rows.push([
      'Redis used_memory per event',
      `${round(perEvent)} B (${bytes(mem.dataSetBytes)}, ${int(mem.keys)} keys = ${round(mem.keys / Math.max(1, t.apiHours))} keys per API-hour)`,
      `≤ ${TAIL_GOALS.bytesPerEvent} B`,
      mark(perEvent <= TAIL_GOALS.bytesPerEvent),
    ]);
  }
  lines.push(...table(['measure', 'result', 'goal', 'met'], rows), '');

  if (t.memory) {
    const families = Object.entries(t.memory.families).sort(([, a], [, b]) => b.bytes - a.bytes);
    lines.push('Memory by key family (MEMORY USAGE), per API-hour holding data:', '');
    lines.push(
      ...table(
        ['family', 'keys', 'keys per API-hour', 'bytes', 'B per key', 'B per event'],
        families.map(([family, f]) => [
          family,
          int(f.keys),
          String(round(f.keys / Math.max(1, t.apiHours))),
          bytes(f.bytes),
          int(f.bytes / Math.max(1, f.keys)),
          String(round(f.bytes / Math.max(1, t.spec.events))),
        ]),
      ),
      '',
    );
  }

  if (t.queries.length > 0) {
    lines.push('Queries at one connection:', '');
    lines.push(
      ...table(
        [
          'API',
          'scenario',
          'rows',
          'p50 ms',
          'p99 ms',
          'req/s',
          'Redis round trips / commands alone',
          'goal p50<2 & p99<10',
        ],
        t.queries.map((q) => {
          const run = q.runs[0]!;
          return [
            `${q.api.label} (${q.api.apiId}, ${int(q.apiEvents)} events)`,
            q.name,
            String(q.rows),
            ms(run.latencyMs.p50),
            ms(run.latencyMs.p99),
            int(run.requestsPerSecond),
            `${q.alone.reads} / ${q.alone.commands}`,
            mark(
              run.failures === 0 &&
                run.latencyMs.p50 < TAIL_GOALS.queryP50Ms &&
                run.latencyMs.p99 < TAIL_GOALS.queryP99Ms,
            ),
          ];
        }),
      ),
      '',
    );
  }

  const stats: [
    string,
    { command: string; calls: number; usec: number; usecPerCall: number }[] | undefined,
  ][] = [
    ['ingest', t.ingest?.commandStats],
    ['compaction', t.compaction?.commandStats],
  ];
  for (const [name, list] of stats) {
    if (!list) continue;
    lines.push(`Redis commands, ${name} phase (INFO commandstats, top by time):`, '');
    lines.push(...commandStatsTable(list, t.spec.events), '');
  }
  lines.push(...profileTables(bench.profiles));
  return lines.join('\n');
}

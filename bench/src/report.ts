/** The Markdown tables of a run (bench/results/latest.md, printed at the end). */
import type { IngestResult } from './phases/ingest';
import { SLOW_LOG_USEC, type SlowEntry, type SlowLog } from './redis-info';
import { GOALS, type BenchResults } from './results';
import { queryTables } from './report-queries';
import { zoneTable } from './report-zones';
import { RANGE_CHECKS } from './scenarios';
import { bytes, int, loadTable, mark, ms, table } from './report-format';
import { round } from './stats';

/** CPU seconds of the worker, Redis and the broker over the run, and per event in µs. */
function cpuPerEvent(i: IngestResult): string {
  const parts: [string, number | null | undefined][] = [
    ['worker', i.workerCpuSeconds],
    ['Redis', i.redisCpuSeconds],
    ['Kafka', i.kafkaCpuSeconds],
  ];
  return parts
    .filter((part): part is [string, number] => typeof part[1] === 'number')
    .map(([name, s]) => `${name} CPU ${round(s)} s = ${round((s * 1e6) / Math.max(1, i.events))} µs/event`)
    .join(', ');
}

function ingestRow(title: string, i: IngestResult): string[] {
  // JSON turns NaN into null: both mean the run was too short to give a rate.
  const rate = i.eventsPerSecond;
  const measured = Number.isFinite(rate);
  return [
    title,
    `${measured ? `${int(rate)} events/s` : 'too few events to measure'} (${int(i.events)} events, first to last applied ${round(i.seconds)} s; ${cpuPerEvent(i)})`,
    `${int(GOALS.ingestEventsPerSecond)} events/s`,
    measured ? mark(rate >= GOALS.ingestEventsPerSecond) : '-',
  ];
}

export function markdownReport(r: BenchResults): string {
  const ds = r.dataSet;
  const m = r.machine;
  const lines: string[] = [
    `# Benchmark: ${r.startedAt}`,
    '',
    `Command: \`${r.command}\``,
    '',
    `Code: commit ${r.code.commit} with ${r.code.changedFiles} changed files, sources ${r.code.sourceHash}.`,
    `Machine: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, Redis ${m.redis}.`,
    `Data set \`${ds.prefix}\`: medium tenant ${int(ds.mediumEvents)} events (1 API, 10,000 keys, 2,000 identities, ` +
      `20 tags) + ${int(ds.backgroundEvents)} background events (100 APIs) over ${ds.spec.days} days, ${ds.spec.order === 'time' ? 'in time order' : 'times in random order'}, seed ${ds.spec.seed}` +
      `${ds.reused ? `; loaded by an earlier run at ${new Date(ds.spec.anchorMs).toISOString()} (--skip-produce)` : ''}.`,
    '',
  ];

  const summary: string[][] = [];
  if (r.produce) {
    summary.push(['produce (kafkajs, no compression)', `${int(r.produce.eventsPerSecond)} events/s`, '', '']);
  }
  if (r.ingest)
    summary.push(
      ingestRow(`ingest, one worker, data set (${r.dataSet.spec.days} days of history)`, r.ingest),
    );
  if (r.ingestLive)
    summary.push(ingestRow('ingest, one worker, live-shaped (last 30 min)', r.ingestLive.ingest));
  if (r.freshness) {
    const f = r.freshness;
    summary.push([
      `freshness at ${int(f.targetRate)} events/s (achieved ${int(f.achievedRate)})`,
      `p50 ${ms(f.latencyMs.p50)} ms, p99 ${ms(f.latencyMs.p99)} ms, max ${ms(f.latencyMs.max)} ms (${f.probes} probes, ${f.lost} lost)`,
      `p99 < ${GOALS.freshnessP99Ms} ms`,
      mark(f.lost === 0 && f.latencyMs.p99 < GOALS.freshnessP99Ms),
    ]);
  }
  if (r.rebuild) {
    const b = r.rebuild;
    const phases = Object.entries(b.phases).map(([name, s]) => `${name} ${round(s)} s`);
    summary.push([
      '`rebuild --yes` of the data set',
      `${int(b.eventsPerSecond)} events/s (${int(b.events)} events, start to switch ${round(b.seconds)} s; ` +
        `${phases.join(', ')}; Redis CPU ${round(b.redisCpuSeconds)} s)`,
      `${int(GOALS.rebuildEventsPerSecond)} events/s`,
      mark(b.eventsPerSecond >= GOALS.rebuildEventsPerSecond),
    ]);
  }
  if (r.compaction) {
    const c = r.compaction;
    summary.push([
      'compaction catch-up',
      `${int(c.hoursCompacted)} API-hours in ${round(c.seconds)} s (${round(c.hoursPerSecond)} hours/s); ` +
        `every sealable bucket sealed ${round(c.sealSeconds ?? 0)} s later`,
      '',
      '',
    ]);
  }
  if (r.memory) {
    const mem = r.memory;
    summary.push([
      'Redis memory per stored counter',
      `${round(mem.bytesPerCounter)} B (used_memory delta ${bytes(mem.dataSetBytes)} / ${int(mem.hashFields)} hash fields; MEMORY USAGE ${round(mem.bytesPerCounterByMemoryUsage)} B)`,
      '',
      '',
    ]);
    summary.push([
      'Redis memory per ingested event',
      `${round(mem.dataSetBytes / Math.max(1, ds.totalEvents))} B (used_memory delta / ${int(ds.totalEvents)} events)`,
      '≤ 16 B',
      mark(mem.dataSetBytes / Math.max(1, ds.totalEvents) <= 16),
    ]);
    summary.push([
      'Redis memory, data set',
      `${bytes(mem.dataSetBytes)} (${int(mem.keys)} keys; counters h/d/m ${int(mem.counterFields.h)} / ${int(mem.counterFields.d)} / ${int(mem.counterFields.m)})`,
      '',
      '',
    ]);
  }
  if (summary.length > 0) lines.push(...table(['measure', 'result', 'goal', 'met'], summary), '');

  lines.push(...queryTables(r));

  const ranges = RANGE_CHECKS.flatMap((check) => {
    const month = r.queries.find((q) => q.name === check.month)?.runs[0]?.latencyMs.p50;
    const year = r.queries.find((q) => q.name === check.year)?.runs[0]?.latencyMs.p50;
    if (month === undefined || year === undefined) return [];
    const ratio = year / month;
    return [
      [
        check.title,
        ms(month),
        ms(year),
        round(ratio).toString(),
        `≤ ${check.maxRatio}×`,
        mark(ratio <= check.maxRatio),
      ],
    ];
  });
  if (ranges.length > 0) {
    lines.push('Time ranges (p50 at c=1 of the range-* scenarios):', '');
    lines.push(...table(['query', '1 month p50 ms', '1 year p50 ms', 'ratio', 'goal', 'met'], ranges), '');
  }

  lines.push(...zoneTable(r.queries));

  // Every phase, and the query runs that had a slow command (there are dozens of runs).
  const slowLogs: [string, SlowLog | undefined][] = [
    ['ingest, history', r.ingest?.slowLog],
    ['ingest, live-shaped', r.ingestLive?.ingest.slowLog],
    ['compaction catch-up', r.compaction?.slowLog],
    ...r.queries.flatMap((q) =>
      q.runs
        .filter((run) => run.slowLog.total > 0)
        .map((run): [string, SlowLog] => [`query ${q.name} c=${run.connections}`, run.slowLog]),
    ),
  ];
  const entry = (e: SlowEntry | undefined) => (e ? `${ms(e.usec / 1000)} ms ${e.command}` : '-');
  const slowRows = slowLogs.flatMap(([phase, log]) =>
    log === undefined ? [] : [[phase, int(log.total), entry(log.slowestScript), entry(log.slowestPlain)]],
  );
  if (slowRows.length > 0) {
    lines.push(
      `Redis slow log (commands over ${SLOW_LOG_USEC / 1000} ms on Redis's thread; the slowest plain command ` +
        "shows how long the OS took that thread's core away, which the scripts' times include too):",
      '',
    );
    lines.push(...table(['phase', 'commands', 'slowest Lua call', 'slowest other command'], slowRows), '');
  }

  if (r.memory?.families) {
    lines.push('Redis memory by key family (MEMORY USAGE, summed):', '');
    const families = Object.entries(r.memory.families).sort(([, a], [, b]) => b.bytes - a.bytes);
    lines.push(
      ...table(
        ['family', 'keys', 'bytes', 'bytes per key'],
        families.map(([family, f]) => [
          family,
          int(f.keys),
          bytes(f.bytes),
          int(f.bytes / Math.max(1, f.keys)),
        ]),
      ),
      '',
    );
  }

  for (const p of r.profiles) {
    lines.push(
      `CPU profile \`${p.file}\` (busy ${round(p.summary.busyMs / 1000)} s): ` +
        p.summary.functions
          .slice(0, 6)
          .map((f) => `${f.name} ${(f.share * 100).toFixed(1)}%`)
          .join('; '),
      '',
    );
  }

  lines.push(...loadTable(r.load));
  return `${lines.join('\n')}\n`;
}

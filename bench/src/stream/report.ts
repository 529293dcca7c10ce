/** The live-updates run as Markdown (bench/results/stream-latest.md, and stream.md when run as defined). */
import type { BenchResults } from '../results';
import { round } from '../stats';
import type { StreamResults } from './run';

const MiB = 2 ** 20;
const n = (v: number) => round(v).toLocaleString('en-US');

export const STREAM_GOAL_P99_MS = 1_000;

export function streamReport(bench: BenchResults, s: StreamResults): string {
  const perStreamKiB = ((s.rss.open - s.rss.before) / s.streams / 1024).toFixed(1);
  const cpuPerStreamMs = (s.cpuSeconds * 1000) / s.streams / s.seconds;
  const window = s.seconds + 5;
  const cal = bench.calibration;
  return [
    `# Live updates (#44)`,
    '',
    `\`${bench.command}\` at commit ${bench.code.commit} (${bench.code.changedFiles} changed files), ${bench.startedAt.slice(0, 10)}.`,
    `Machine: ${bench.machine.cpus} CPUs (${bench.machine.cpuModel}), Node ${bench.machine.node}, Redis ${bench.machine.redis};`,
    `load average ${s.load.before.join(' ')} before, ${s.load.after.join(' ')} after.`,
    `${s.streams} streams on one query service over ${s.apis} APIs (${s.queries} distinct queries; ${s.rootKeys} root keys, ${s.readTokens} read tokens),`,
    `${n(s.targetRate)} events/s for ${window} s (first 5 s not counted).`,
    '',
    '| measure | result | goal | met |',
    '|---|---|---|---|',
    `| produce-to-push, ${s.streams} streams at ${n(s.targetRate)} events/s (achieved ${n(s.achievedRate)}) | p50 ${n(s.latencyMs.p50)} ms, p90 ${n(s.latencyMs.p90)} ms, p99 ${n(s.latencyMs.p99)} ms, max ${n(s.latencyMs.max)} ms (${n(s.latencyMs.count)} marks, ${s.unseen} unseen) | p99 ≤ ${STREAM_GOAL_P99_MS} ms | ${s.latencyMs.p99 <= STREAM_GOAL_P99_MS && s.unseen === 0 ? 'yes' : 'NO'} |`,
    `| of which the broker's acknowledgement of the batch | p50 ${n(s.produceAckMs.p50)} ms, p99 ${n(s.produceAckMs.p99)} ms |  |  |`,
    `| query service, ${s.streams} streams | CPU ${round(s.cpuSeconds)} s in ${window} s (${round((s.cpuSeconds / window) * 100)}% of a core, ${cpuPerStreamMs.toFixed(3)} ms per stream-second); RSS ${round(s.rss.before / MiB)} MiB before the streams, ${round(s.rss.open / MiB)} MiB open (${perStreamKiB} KiB per stream), ${round(s.rss.end / MiB)} MiB at the end; stream reads ${round(s.readsPerSecond)}/s (${round(s.changedReadsPerSecond)}/s changed), answer events ${n(s.eventsPerSecond)}/s, change signals ${round(s.signalsPerSecond)}/s |  |  |`,
    `| streams opened | ${s.streams} in ${n(s.openMs)} ms; ${n(s.answers)} answers received |  |  |`,
    `| calibration: bare node:http round trip, 1 connection | ${cal ? `p50 ${cal.latencyMs.p50.toFixed(3)} ms, p99 ${cal.latencyMs.p99.toFixed(3)} ms` : '-'} |  |  |`,
    `| bench process CPU (producer and the ${s.streams} stream clients) | ${round(s.benchCpuSeconds)} s |  |  |`,
    '',
  ].join('\n');
}

/** How the report writes numbers and tables. */
import type { CommandStat } from './redis-info';
import type { BenchResults, ProfileResult } from './results';
import { round } from './stats';

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (Number.isFinite(n) ? String(round(n)) : '-');
export const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
export const bytes = (n: number) =>
  n >= 2 ** 30
    ? `${round(n / 2 ** 30)} GiB`
    : n >= 2 ** 20
      ? `${round(n / 2 ** 20)} MiB`
      : `${round(n / 1024)} KiB`;

export function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/** INFO commandstats of a phase, top by time, with the calls per event of the `events` it applied. */
export function commandStatsTable(list: readonly CommandStat[], events: number): string[] {
  return table(
    ['command', 'calls', 'seconds', 'µs per call', 'calls per event'],
    list.map((s) => [
      s.command,
      int(s.calls),
      String(round(s.usec / 1e6)),
      String(round(s.usecPerCall)),
      String(round(s.calls / Math.max(1, events))),
    ]),
  );
}

/** Each CPU profile's self time by area, then by function. */
export function profileTables(profiles: readonly ProfileResult[]): string[] {
  return profiles.flatMap((p) => [
    `CPU profile \`${p.file}\` (busy ${int(p.summary.busyMs)} ms; self time by area, then by function):`,
    '',
    ...table(
      ['area or function', 'self ms', 'share'],
      [...p.summary.areas, ...p.summary.functions].map((f) => [
        f.name,
        int(f.selfMs),
        `${round(f.share * 100)}%`,
      ]),
    ),
    '',
  ]);
}

export const loadAverage = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' / ');

/** The load average before and after each phase of a run. */
export function loadTable(load: BenchResults['load']): string[] {
  return [
    'Load average (1 / 5 / 15 min) before → after each phase:',
    '',
    ...table(
      ['phase', 'before', 'after'],
      Object.entries(load).map(([phase, l]) => [phase, loadAverage(l.before), loadAverage(l.after)]),
    ),
  ];
}

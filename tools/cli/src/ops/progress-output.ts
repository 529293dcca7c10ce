/**
 * How long-running commands show progress (pure). A bar is drawn on stderr, so it is drawn only when stderr
 * is a terminal: stdout may be piped into a file or another program (`produce ... | tee`) while a person
 * watches stderr, and a bar written into a pipe is noise. Without a terminal a command prints a line now and
 * then instead, as JSON objects with `--json` (for a job runner or a script), or not at all.
 */
export type ProgressOutput = 'bar' | 'json' | 'text' | 'none';

export function progressOutput(options: {
  stderrIsTTY: boolean;
  /** --json: JSON lines instead of a bar or text. */
  json?: boolean;
  /** Whether the command prints text lines without a terminal (else nothing until its summary). */
  textLines?: boolean;
}): ProgressOutput {
  if (options.json) return 'json';
  if (options.stderrIsTTY) return 'bar';
  return options.textLines ? 'text' : 'none';
}

export interface Sample {
  atMs: number;
  done: number;
}

export interface Throughput {
  /** Units (events) per second between the two samples; 0 before any time passed. */
  perSecond: number;
  /** Seconds until `total` at that speed; null while nothing moved (no estimate). */
  etaSeconds: number | null;
}

export function throughput(first: Sample, last: Sample, total: number): Throughput {
  const seconds = (last.atMs - first.atMs) / 1000;
  const perSecond = seconds > 0 ? Math.max(0, last.done - first.done) / seconds : 0;
  const left = Math.max(0, total - last.done);
  return { perSecond, etaSeconds: left === 0 ? 0 : perSecond > 0 ? Math.ceil(left / perSecond) : null };
}

/** "2h 05m", "4m 07s", "12s", "?" (no estimate). */
export function formatEta(seconds: number | null): string {
  if (seconds === null) return '?';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Percent of `total` done, 100 when there is nothing to do. */
export const percentDone = (done: number, total: number): number =>
  total <= 0 ? 100 : Math.min(100, Math.floor((100 * done) / total));

/** The fields every JSON progress line starts with: the command, its phase, done of total, speed and time left. */
export function progressFields(
  command: string,
  phase: string,
  done: number,
  total: number,
  speed: { eventsPerSecond: number; etaSeconds: number | null },
) {
  return {
    progress: command,
    phase,
    done,
    total,
    percent: percentDone(done, total),
    eventsPerSecond: Math.round(speed.eventsPerSecond),
    etaSeconds: speed.etaSeconds,
  };
}

/**
 * Shows a running rebuild's progress (../ops/progress-output.ts decides how): on a terminal (stderr) one
 * bar per partition under a bar of all of them with events/s and the time left; otherwise a line now and
 * then on stdout, a JSON object with `--json` (job runners, scripts) or text (logs stay readable).
 * Offsets are events: each record of the replayed topics is one verification event.
 */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import {
  formatEta,
  percentDone,
  progressFields,
  progressOutput,
  throughput,
  type Sample,
  type Throughput,
} from '../ops/progress-output';
import { doneOf, percentOf, totalOf, type PartitionProgress } from './progress';

const ALL = 'all';

/** The line printed without a terminal (pure). */
export function progressLine(
  phase: string,
  rows: readonly PartitionProgress[],
  speed: Throughput,
  format: 'json' | 'text',
): string {
  const total = rows.reduce((s, r) => s + Math.max(0, totalOf(r)), 0);
  const done = rows.reduce((s, r) => s + doneOf(r), 0);
  const percent = percentDone(done, total);
  const behind = rows.filter((r) => r.target < r.source).length;
  const eventsPerSecond = Math.round(speed.perSecond);
  if (format === 'json') {
    return JSON.stringify({
      ...progressFields('rebuild', phase, done, total, { eventsPerSecond, etaSeconds: speed.etaSeconds }),
      partitionsBehind: behind,
      partitions: rows.map((r) => ({ partition: r.field, done: doneOf(r), total: Math.max(0, totalOf(r)) })),
    });
  }
  return (
    `${phase}: ${done} of ${total} offsets (${percent}%), ${eventsPerSecond} events/s, ETA ${formatEta(speed.etaSeconds)}, ` +
    `${behind} partitions behind the current generation; ${rows.map((r) => `${r.field} ${percentOf(r)}%`).join(', ')}`
  );
}

export class ProgressView {
  private multi: MultiBar | undefined;
  private readonly bars = new Map<string, SingleBar>();
  private readonly format: 'json' | 'text';
  private readonly lineEveryMs: number;
  private lastLine = 0;
  /** The phase's first sample: the speed is the average since (steadier than the last second's). */
  private first: (Sample & { phase: string }) | undefined;

  constructor(
    private readonly write: (line: string) => void,
    options: { json?: boolean; lineEveryMs?: number } = {},
  ) {
    this.lineEveryMs = options.lineEveryMs ?? 10_000;
    const output = progressOutput({
      stderrIsTTY: process.stderr.isTTY === true,
      json: options.json === true,
      textLines: true,
    });
    this.format = output === 'json' ? 'json' : 'text';
    if (output === 'bar') {
      this.multi = new MultiBar(
        {
          format: '{field} [{bar}] {percentage}% | {value}/{total} {speed}',
          hideCursor: true,
          clearOnComplete: false,
          stream: process.stderr,
        },
        Presets.shades_classic,
      );
    }
  }

  update(phase: string, rows: readonly PartitionProgress[]): void {
    const now = Date.now();
    const total = rows.reduce((s, r) => s + Math.max(0, totalOf(r)), 0);
    const done = rows.reduce((s, r) => s + doneOf(r), 0);
    if (this.first?.phase !== phase) this.first = { phase, atMs: now, done };
    const speed = throughput(this.first, { atMs: now, done }, total);
    if (this.multi) {
      const width = Math.max(ALL.length, ...rows.map((r) => r.field.length));
      const speedText = `| ${Math.round(speed.perSecond)} events/s | ETA ${formatEta(speed.etaSeconds)}`;
      this.bar(ALL, width, total, done, speedText);
      for (const r of rows) this.bar(r.field, width, totalOf(r), doneOf(r), '');
      return;
    }
    if (now - this.lastLine < this.lineEveryMs) return;
    this.lastLine = now;
    this.write(progressLine(phase, rows, speed, this.format));
  }

  private bar(field: string, width: number, total: number, done: number, speed: string): void {
    const payload = { field: field.padEnd(width), speed };
    let bar = this.bars.get(field);
    if (!bar) {
      bar = this.multi!.create(Math.max(total, 1), done, payload);
      this.bars.set(field, bar);
    }
    bar.setTotal(Math.max(total, 1));
    bar.update(total <= 0 ? 1 : done, payload);
  }

  stop(): void {
    this.multi?.stop();
    this.multi = undefined;
  }
}

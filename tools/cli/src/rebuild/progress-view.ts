/**
 * Shows a running rebuild's progress: one bar per partition on a TTY (stderr), otherwise a line
 * now and then (logs of a job runner stay readable).
 */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import { doneOf, percentOf, totalOf, type PartitionProgress } from './progress';

export class ProgressView {
  private multi: MultiBar | undefined;
  private readonly bars = new Map<string, SingleBar>();
  private lastLine = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly lineEveryMs = 10_000,
  ) {
    if (process.stderr.isTTY) {
      this.multi = new MultiBar(
        {
          format: '{field} [{bar}] {percentage}% | {value}/{total}',
          hideCursor: true,
          clearOnComplete: false,
        },
        Presets.shades_classic,
      );
    }
  }

  update(phase: string, rows: readonly PartitionProgress[]): void {
    if (this.multi) {
      const width = Math.max(...rows.map((r) => r.field.length));
      for (const r of rows) {
        let bar = this.bars.get(r.field);
        const payload = { field: r.field.padEnd(width) };
        if (!bar) {
          bar = this.multi.create(Math.max(totalOf(r), 1), doneOf(r), payload);
          this.bars.set(r.field, bar);
        }
        bar.setTotal(Math.max(totalOf(r), 1));
        bar.update(totalOf(r) <= 0 ? 1 : doneOf(r), payload);
      }
      return;
    }
    if (Date.now() - this.lastLine < this.lineEveryMs) return;
    this.lastLine = Date.now();
    const total = rows.reduce((s, r) => s + Math.max(0, totalOf(r)), 0);
    const done = rows.reduce((s, r) => s + doneOf(r), 0);
    const behind = rows.filter((r) => r.target < r.source).length;
    this.write(
      `${phase}: ${done} of ${total} offsets (${total === 0 ? 100 : Math.floor((100 * done) / total)}%), ` +
        `${behind} partitions behind the current generation; ${rows.map((r) => `${r.field} ${percentOf(r)}%`).join(', ')}`,
    );
  }

  stop(): void {
    this.multi?.stop();
    this.multi = undefined;
  }
}

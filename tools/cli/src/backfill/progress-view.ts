/**
 * Shows a running backfill's progress (../ops/progress-output.ts decides how): on a terminal a bar on
 * stderr with events/s and the time left; otherwise, every `lineEveryMs`, a line on stderr: a JSON
 * object with `--json` (job runners, scripts), else text. stdout carries the summary alone, so that
 * `backfill --json > summary.json` stays one JSON document.
 * Phases: `read` (lines or records read and sent; done/total in the source's units: bytes of a file,
 * records of a topic) and `counted` (offsets the ingest worker has applied).
 */
import { Presets, SingleBar } from 'cli-progress';
import {
  formatEta,
  percentDone,
  progressFields,
  progressOutput,
  throughput,
  type Sample,
  type Throughput,
} from '../ops/progress-output';

export type BackfillPhase = 'read' | 'counted';

/** What the read phase has seen so far (the bar and the lines show it). */
export interface ReadCounts {
  read: number;
  valid: number;
  dead: number;
}

/** The line printed without a terminal (pure). */
export function backfillProgressLine(
  phase: BackfillPhase,
  done: number,
  total: number,
  speed: { eventsPerSecond: number; etaSeconds: Throughput['etaSeconds'] },
  counts: ReadCounts | undefined,
  format: 'json' | 'text',
): string {
  if (format === 'json')
    return JSON.stringify({ ...progressFields('backfill', phase, done, total, speed), ...counts });
  const seen =
    phase === 'read' && counts
      ? `${counts.read} read, ${counts.valid} valid, ${counts.dead} dead-lettered`
      : `${done} of ${total} offsets applied`;
  const perSecond = Math.round(speed.eventsPerSecond);
  return `backfill ${phase}: ${percentDone(done, total)}%, ${seen}, ${perSecond} events/s, ETA ${formatEta(speed.etaSeconds)}`;
}

const BAR_FORMATS: Record<BackfillPhase, string> = {
  read: 'read     [{bar}] {percentage}% | {read} read, {valid} valid, {dead} dead-lettered | {rate} events/s | ETA {eta}',
  counted: 'counted  [{bar}] {percentage}% | {value}/{total} offsets applied | {rate} events/s | ETA {eta}',
};

export class BackfillProgress {
  private bar: SingleBar | undefined;
  private readonly output: ReturnType<typeof progressOutput>;
  private phase: BackfillPhase | undefined;
  private first: Sample | undefined;
  /** Events read at the phase's first sample (the read phase's `done` is bytes of a file). */
  private firstRead = 0;
  private lastLine = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly options: { json: boolean; stderrIsTTY: boolean; lineEveryMs?: number },
  ) {
    this.output = progressOutput({ stderrIsTTY: options.stderrIsTTY, json: options.json, textLines: true });
  }

  update(phase: BackfillPhase, done: number, total: number, counts?: ReadCounts): void {
    const now = Date.now();
    if (phase !== this.phase) {
      this.stop();
      this.phase = phase;
      this.first = { atMs: now, done };
      this.firstRead = counts?.read ?? 0;
      this.lastLine = now;
      if (this.output === 'bar') {
        this.bar = new SingleBar(
          { format: BAR_FORMATS[phase], hideCursor: true, stream: process.stderr },
          Presets.shades_classic,
        );
        this.bar.start(Math.max(total, 1), done, { ...counts, rate: 0, eta: '?' });
      }
    }
    const first = this.first!;
    const { perSecond, etaSeconds } = throughput(first, { atMs: now, done }, total);
    // Events per second: of the events read (read phase), of the offsets applied (counted).
    const seconds = (now - first.atMs) / 1000;
    const eventsPerSecond = counts ? (seconds > 0 ? (counts.read - this.firstRead) / seconds : 0) : perSecond;
    if (this.bar) {
      this.bar.setTotal(Math.max(total, 1));
      this.bar.update(done, { ...counts, rate: Math.round(eventsPerSecond), eta: formatEta(etaSeconds) });
      return;
    }
    if (now - this.lastLine < (this.options.lineEveryMs ?? 10_000)) return;
    this.lastLine = now;
    const format = this.output === 'json' ? 'json' : 'text';
    this.write(backfillProgressLine(phase, done, total, { eventsPerSecond, etaSeconds }, counts, format));
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}

/**
 * Resumable `backfill --file`: the progress record of one file and what a run does with it (pure;
 * the Redis and Kafka edges are in resume-io.ts).
 *
 * The record is keyed by the SHA-256 of the file's bytes (`<p>:backfill:<sha256>`, libs/store
 * keys.ts), so a renamed or copied file is the same backfill, and an edited file is a new one.
 * It says: every line up to `lines` is in Kafka (valid ones in the backfill topic, refused ones in
 * the DLQ), with the tallies of those lines. It moves after each batch Kafka acknowledged.
 *
 * Between an acknowledgement and the record's update a run can die: the lines of that batch are in
 * Kafka but not in the record. Every message a file backfill writes carries
 * `x-backfill-sha256` and `x-backfill-line` headers, and the record keeps, per partition, where
 * the last acknowledged batch starts (`scanFrom`); a resumed run reads the topics from there and
 * skips the lines it finds. So a line is written once, however often the backfill is killed.
 */
import type { IHeaders, RecordMetadata } from 'kafkajs';

export const SHA_HEADER = 'x-backfill-sha256';
export const LINE_HEADER = 'x-backfill-line';

/** What became of a line: `valid` (backfill topic) or the DLQ reason. */
export type LineKind = string;
export const VALID: LineKind = 'valid';

export interface BackfillRecord {
  version: 1;
  sha256: string;
  /** The path of the run that started it (for people; the hash is the identity). */
  source: string;
  /** Every line up to this one (1-based, blank ones included) is in Kafka. */
  lines: number;
  read: number;
  produced: number;
  rejected: Record<string, number>;
  /** Ends of the backfill topic and the DLQ before the first run: what the summary waits for and reads back. */
  before: { topic: string; partition: number; high: number }[];
  /** "<topic>/<partition>" -> offset where a resumed run looks for lines past `lines`. */
  scanFrom: Record<string, number>;
  done: boolean;
  startedAt: string;
  updatedAt: string;
}

export function newRecord(
  sha256: string,
  source: string,
  before: BackfillRecord['before'],
  now: Date,
): BackfillRecord {
  return {
    version: 1,
    sha256,
    source,
    lines: 0,
    read: 0,
    produced: 0,
    rejected: {},
    before,
    scanFrom: Object.fromEntries(before.map((p) => [`${p.topic}/${p.partition}`, p.high])),
    done: false,
    startedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

/** The headers that mark a message as line `line` of the file `sha256`. */
export const lineHeaders = (sha256: string, line: number): IHeaders => ({
  [SHA_HEADER]: sha256,
  [LINE_HEADER]: String(line),
});

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const raw = headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
};

/**
 * A line of this file found in the topics past the record (or undefined). In the DLQ only the
 * CLI's own records count (x-original-topic `file:...`): the worker's dead letters of backfill
 * records copy their headers too.
 */
export function foundLine(
  sha256: string,
  isDlq: boolean,
  headers: IHeaders | undefined,
): { line: number; kind: LineKind } | undefined {
  if (header(headers, SHA_HEADER) !== sha256) return undefined;
  const line = Number(header(headers, LINE_HEADER));
  if (!Number.isSafeInteger(line)) return undefined;
  if (!isDlq) return { line, kind: VALID };
  if (!header(headers, 'x-original-topic')?.startsWith('file:')) return undefined;
  return { line, kind: header(headers, 'x-dlq-reason') ?? 'unknown' };
}

/** A run's bookkeeping: which lines to skip, and the record after each acknowledged batch. */
export class ResumeState {
  readonly resumedAfter: number;

  constructor(
    readonly record: BackfillRecord,
    /** Lines past record.lines already in Kafka (found by the scan). */
    private readonly already: Map<number, LineKind>,
  ) {
    this.resumedAfter = record.lines;
  }

  /** Whether line `line` must be sent (not already in Kafka). */
  needs(line: number): boolean {
    return line > this.record.lines && !this.already.has(line);
  }

  private count(kind: LineKind): void {
    const r = this.record;
    r.read++;
    if (kind === VALID) r.produced++;
    else r.rejected[kind] = (r.rejected[kind] ?? 0) + 1;
  }

  /** Folds the found lines up to `through` into the tallies (once the record passes them). */
  private absorb(through: number): void {
    for (const [line, kind] of this.already) {
      if (line > through) continue;
      this.count(kind);
      this.already.delete(line);
    }
  }

  /** A batch Kafka acknowledged (refs in send order). Returns the record to store. */
  delivered(
    refs: readonly ({ line: number; kind: LineKind } | undefined)[],
    records: RecordMetadata[],
    now: Date,
  ) {
    const r = this.record;
    for (const ref of refs) {
      if (!ref) continue;
      this.count(ref.kind);
      if (ref.line > r.lines) r.lines = ref.line;
    }
    for (const m of records) {
      const base = Number(m.baseOffset);
      if (Number.isSafeInteger(base) && base >= 0) r.scanFrom[`${m.topicName}/${m.partition}`] = base;
    }
    this.absorb(r.lines);
    r.updatedAt = now.toISOString();
    return r;
  }

  /** Everything is in Kafka: the file's last line is `lastLine`. */
  finish(lastLine: number, now: Date): BackfillRecord {
    const r = this.record;
    r.lines = Math.max(r.lines, lastLine);
    this.absorb(r.lines);
    r.done = true;
    r.updatedAt = now.toISOString();
    return r;
  }
}

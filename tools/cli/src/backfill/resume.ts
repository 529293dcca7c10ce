/**
 * Resumable `backfill --file`: the progress record of one file and what a run does with each line
 * (pure; the Redis and Kafka edges are in resume-io.ts, the lines and their hashes in lines.ts).
 *
 * The record is keyed by the SHA-256 of the file's first non-blank line (`<p>:backfill:<id>`, libs/store
 * keys.ts), so a renamed, copied or grown (appended to) file continues the same backfill. It says: every
 * line up to `lines` is in Kafka (valid ones in the backfill topic, refused ones in the DLQ), with the
 * tallies of those lines and the hash chain at that line (lines.ts). It moves after each batch Kafka
 * acknowledged. A later run sends only the lines after it, and refuses the file when the chain shows that
 * a line already sent has changed: sending it again would count those lines twice.
 *
 * Between an acknowledgement and the record's update a run can die: the lines of that batch are in
 * Kafka but not in the record. Every message a file backfill writes carries `x-backfill-sha256` (the
 * record's id), `x-backfill-line` and `x-backfill-chain` headers, and the record keeps, per partition,
 * where the last acknowledged batch starts (`scanFrom`); a resumed run reads the topics from there and
 * skips the lines it finds, if they are still the same. So a line is written once, however often the
 * backfill is killed and whatever is appended meanwhile.
 */
import type { IHeaders, RecordMetadata } from 'kafkajs';

export const SHA_HEADER = 'x-backfill-sha256';
export const LINE_HEADER = 'x-backfill-line';
export const CHAIN_HEADER = 'x-backfill-chain';

/** What became of a line: `valid` (backfill topic) or the DLQ reason. */
export type LineKind = string;
export const VALID: LineKind = 'valid';

export interface BackfillRecord {
  version: 2;
  /** SHA-256 of the file's first non-blank line (lines.ts lineIdentity). */
  id: string;
  /** The path of the run that started it (for people; the id is the identity). */
  source: string;
  /** Every line up to this one (1-based, blank ones included) is in Kafka. */
  lines: number;
  /** The hash chain at `lines` (lines.ts): the file's lines 1..lines as they were sent. */
  chain: string;
  read: number;
  produced: number;
  rejected: Record<string, number>;
  /** Ends of the backfill topic and the DLQ before the first run: what the summary waits for and reads back. */
  before: { topic: string; partition: number; high: number }[];
  /** "<topic>/<partition>" -> offset where a resumed run looks for lines past `lines`. */
  scanFrom: Record<string, number>;
  /** The last run reached the file's end (a later run still sends lines appended since). */
  done: boolean;
  startedAt: string;
  updatedAt: string;
}

/** A line found in Kafka past the record: what became of it and its chain when it was sent. */
export interface FoundLine {
  kind: LineKind;
  chain: string | undefined;
}

/**
 * What a run does with a line: send it, skip it (in Kafka already, or blank), hold it (send it once
 * `lastFound` is reached and proven unchanged), or refuse the file.
 */
export type Verdict = 'send' | 'skip' | 'hold' | { refuse: string };

export function newRecord(
  id: string,
  source: string,
  before: BackfillRecord['before'],
  now: Date,
): BackfillRecord {
  return {
    version: 2,
    id,
    source,
    lines: 0,
    chain: '',
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

/** A stored record of this version, or undefined (absent, or an earlier version's: `legacy`). */
export function parseRecord(raw: string | null): { record?: BackfillRecord; legacy?: { lines: number } } {
  if (raw === null) return {};
  const value = JSON.parse(raw) as { version?: number; lines?: number };
  return value.version === 2 ? { record: value as BackfillRecord } : { legacy: { lines: value.lines ?? 0 } };
}

/** The headers that mark a message as line `line` (with hash chain `chain`) of the backfill `id`. */
export const lineHeaders = (id: string, line: number, chain: string): IHeaders => ({
  [SHA_HEADER]: id,
  [LINE_HEADER]: String(line),
  [CHAIN_HEADER]: chain,
});

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const raw = headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
};

/**
 * A line of this backfill found in the topics (or undefined). In the DLQ only the CLI's own records
 * count (x-original-topic `file:...`): the worker's dead letters of backfill records copy their headers too.
 */
export function foundLine(
  id: string,
  isDlq: boolean,
  headers: IHeaders | undefined,
): ({ line: number } & FoundLine) | undefined {
  if (header(headers, SHA_HEADER) !== id) return undefined;
  const line = Number(header(headers, LINE_HEADER));
  if (!Number.isSafeInteger(line)) return undefined;
  const chain = header(headers, CHAIN_HEADER);
  if (!isDlq) return { line, kind: VALID, chain };
  if (!header(headers, 'x-original-topic')?.startsWith('file:')) return undefined;
  return { line, kind: header(headers, 'x-dlq-reason') ?? 'unknown', chain };
}

const HOW =
  ': the file was edited since (or is another file that starts with the same line). Sending it would ' +
  'count lines twice. Put only the lines that were never sent in a new file; or, to count this file ' +
  'again on purpose, delete the record (redis-cli DEL <record>) and run again';

/** Why a changed file is refused, naming the record that sent its lines. */
export const changedMessage = (path: string, key: string, record: BackfillRecord, what: string): string =>
  `${path} changed: ${what} progress record ${key} sent (last update ${record.updatedAt})` +
  HOW.replace('<record>', key);

/** A run's bookkeeping: which lines to send, skip or refuse, and the record after each acknowledged batch. */
export class ResumeState {
  readonly resumedAfter: number;
  /** The last line in Kafka when the run started: held lines are sent once it is read and proven. */
  readonly lastFound: number;

  constructor(
    readonly record: BackfillRecord,
    /** Lines past record.lines already in Kafka (found by the scan). */
    private readonly found: Map<number, FoundLine>,
    /** The record's Redis key and the file's path, for messages. */
    private readonly names: { key: string; path: string } = { key: '', path: '' },
  ) {
    this.resumedAfter = record.lines;
    this.lastFound = Math.max(record.lines, ...found.keys());
  }

  /**
   * Line `line` of the file, whose chain is `chain`. Lines up to the record are proven unchanged at
   * its last line (one chain proves them all); a line found in Kafka is skipped if it is the same
   * line, and refuses the file if not. A line before the last found one that is not in Kafka (a
   * batch over several partitions can be written in some and not in others when the run dies) is
   * `hold`: sent once the last found line has proven the lines before it unchanged. So every
   * refusal comes before this run sent anything.
   */
  decide(line: number, chain: string, blank: boolean): Verdict {
    const { key, path } = this.names;
    const r = this.record;
    if (line < r.lines) return 'skip';
    if (line === r.lines)
      return chain === r.chain
        ? 'skip'
        : { refuse: changedMessage(path, key, r, `its lines 1-${line} differ from those`) };
    const found = this.found.get(line);
    if (found)
      return found.chain === chain
        ? 'skip'
        : { refuse: changedMessage(path, key, r, `its line ${line} differs from the line ${line}`) };
    if (blank) return 'skip';
    return line < this.lastFound ? 'hold' : 'send';
  }

  /** At the file's end (`lines` complete lines): a file shorter than what was sent has changed. */
  end(lines: number): string | undefined {
    if (lines >= this.lastFound) return undefined;
    const { key, path } = this.names;
    return changedMessage(path, key, this.record, `it has ${lines} lines, fewer than the ${this.lastFound}`);
  }

  private count(kind: LineKind): void {
    const r = this.record;
    r.read++;
    if (kind === VALID) r.produced++;
    else r.rejected[kind] = (r.rejected[kind] ?? 0) + 1;
  }

  /** Folds the found lines up to `through` into the tallies (once the record passes them). */
  private absorb(through: number): void {
    for (const [line, { kind }] of this.found) {
      if (line > through) continue;
      this.count(kind);
      this.found.delete(line);
    }
  }

  /** A batch Kafka acknowledged (refs in send order). Returns the record to store. */
  delivered(
    refs: readonly ({ line: number; kind: LineKind; chain: string } | undefined)[],
    records: RecordMetadata[],
    now: Date,
  ) {
    const r = this.record;
    r.done = false; // until this run reaches the end: a run killed now left the file unfinished
    for (const ref of refs) {
      if (!ref) continue;
      this.count(ref.kind);
      if (ref.line > r.lines) {
        r.lines = ref.line;
        r.chain = ref.chain;
      }
    }
    for (const m of records) {
      const base = Number(m.baseOffset);
      if (Number.isSafeInteger(base) && base >= 0) r.scanFrom[`${m.topicName}/${m.partition}`] = base;
    }
    this.absorb(r.lines);
    r.updatedAt = now.toISOString();
    return r;
  }

  /**
   * Everything read is in Kafka: the file's last complete line is `lastLine` with chain `chain`;
   * `complete` unless a partial line follows it (then the record stays unfinished).
   */
  finish(lastLine: number, chain: string, complete: boolean, now: Date): BackfillRecord {
    const r = this.record;
    if (lastLine >= r.lines) {
      r.lines = lastLine;
      r.chain = chain;
    }
    this.absorb(r.lines);
    r.done = complete;
    r.updatedAt = now.toISOString();
    return r;
  }
}

/** What the start of a run says, or why it refuses the file, given what Redis holds. */
export function startVerdict(
  path: string,
  key: string,
  record: BackfillRecord | undefined,
  /** The record the last run from this path used, when it is another one than `key`. */
  pathOwner: { key: string; record: BackfillRecord } | undefined,
): { refuse: string } | { notes: string[] } {
  const notes: string[] = [];
  if (pathOwner && !pathOwner.record.done)
    return {
      refuse:
        `${path} has an unfinished progress record ${pathOwner.key} (lines 1-${pathOwner.record.lines} ` +
        `sent, last update ${pathOwner.record.updatedAt}) whose first line is not this file's: the file was ` +
        'replaced or edited while its backfill was unfinished. Finish that backfill with the file it started ' +
        `from; or give up its remaining lines by deleting the record (redis-cli DEL ${pathOwner.key}; the ` +
        'lines it sent stay counted), and run again',
    };
  if (pathOwner)
    notes.push(
      `${path} was backfilled before with other content (progress record ${pathOwner.key}, ` +
        `${pathOwner.record.lines} lines): this file is a new backfill`,
    );
  if (record?.done)
    notes.push(
      `${path}: lines 1-${record.lines} were backfilled completely (${record.updatedAt}, progress record ` +
        `${key}): only lines appended since are sent, then the command waits for them to be counted`,
    );
  else if (record) notes.push(`resuming ${path} after line ${record.lines} (progress record ${key})`);
  return { notes };
}

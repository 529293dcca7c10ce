/**
 * The lines of a backfill file and their identity (pure).
 *
 * A line is the bytes before a `\n`; bytes after the last `\n` are not a line yet but a partial one (an
 * export still being written), which the backfill never sends: sent now, its rest would arrive as another
 * line later, or the completed line would look already sent.
 *
 * Identity of a file backfill: the SHA-256 of the file's first non-blank line. Appending keeps it, so a
 * file that grew continues the same progress record; whether the lines sent before are still the same
 * bytes is told by a hash chain over every line (blank ones included): chain(0) = "" and
 * chain(n) = SHA-256(chain(n-1) "\n" bytes of line n). The record keeps the chain at its last line, and
 * every message carries the chain of its line, so one value proves a whole prefix of the file unchanged.
 */
import { createHash } from 'node:crypto';

export interface FileLine {
  /** 1-based line number. */
  line: number;
  /** The line's bytes without its `\n` (a `\r` before it is kept: it is part of what was sent). */
  bytes: Buffer;
}

export const CHAIN_START = '';

export const chainNext = (previous: string, bytes: Buffer): string =>
  createHash('sha256').update(previous).update('\n').update(bytes).digest('hex');

export const lineIdentity = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Blank lines are layout, not events: never sent (but in the chain and the numbering). */
export const isBlank = (bytes: Buffer): boolean => bytes.toString('utf8').trim() === '';

/** The event text of a line (a CRLF file's `\r` dropped). */
export const lineText = (bytes: Buffer): Buffer =>
  bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, -1) : bytes;

/** Splits a byte stream into lines; what follows the last `\n` is `partial()`. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private count = 0;

  *push(chunk: Buffer): Generator<FileLine> {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      const bytes = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      start = nl + 1;
      yield { line: ++this.count, bytes };
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  /** Complete lines so far. */
  get lines(): number {
    return this.count;
  }

  /** The bytes after the last line end, as the line they would become (undefined when none). */
  partial(): FileLine | undefined {
    return this.pending.length > 0 ? { line: this.count + 1, bytes: Buffer.concat(this.pending) } : undefined;
  }
}

/**
 * One distinct stream query (stream-query.ts) and the streams that share it: one read, one answer,
 * pushed to each of them (docs/api.md#stream).
 *
 * When it reads: at once when the group is made (the first answer); then after a change signal for its
 * API: at once when the previous read began `minIntervalMs` ago or longer (the first signal after a quiet
 * spell is read at the signal), else when that much has passed (a signal during a read makes one more
 * read after it, so nothing committed before a signal is missed); and at the latest `refreshMs` after the
 * previous read, signal or not (a lost signal, an ingest worker that publishes none, a rebuild's switch).
 * A read whose answer has the id of the previous one sends nothing.
 *
 * Before an answer goes to a stream, the stream's credential is checked again (a revoked key or an
 * expired token ends the stream with an error event instead); streams with the same credential and
 * query string share that check.
 */
import type { ApiError } from '../http/api-error';
import type { StreamAnswerBytes } from './read';
import { answerEvent } from './sse';
import type { StreamQuery } from './stream-query';
import type { StreamMetrics } from './metrics';

/**
 * At most one read per group (and so one event per stream) every 500 ms. Under continuous traffic every
 * signal finds the previous read younger than this, so a change waits up to this long for the read that
 * includes it: produce-to-push is the ingest delay + 0..MIN_INTERVAL_MS + the read and the push. At a
 * second that is over a second at p99 by construction; at 500 ms it leaves half a second for the rest,
 * for twice the reads and events of a busy query (docs/query-service.md "Live streams").
 */
export const MIN_INTERVAL_MS = 500;

/** An open stream as its group sees it (open-stream.ts). */
export interface Member {
  /** Streams with the same credential and query string share one check per read. */
  readonly authKey: string;
  /** null while the credential may still read the query; else the error that ends the stream. */
  recheck(): Promise<ApiError | null>;
  /** Sends an answer (skipped when the stream already has this id). */
  send(answer: Answer): void;
  /** Ends the stream, with an error event when one is given. */
  end(error?: ApiError): void;
}

export interface Answer extends StreamAnswerBytes {
  /** The whole event, written once and sent to every member. */
  event: Buffer;
}

export interface GroupDeps {
  read(query: StreamQuery): Promise<StreamAnswerBytes>;
  now(): number;
  /** MIN_INTERVAL_MS: the least time from the start of one read to the start of the next. */
  minIntervalMs: number;
  refreshMs: number;
  /** An error of a later read that ends the streams (a row cap reached, a query grown too expensive). */
  isFinal(error: unknown): error is ApiError;
  /** A later read failed and the streams go on (a timeout, Redis away): for the log. */
  onTransient(error: unknown, query: StreamQuery): void;
  /** The group has no stream left and no one joining: the hub forgets it. */
  onIdle(group: QueryGroup): void;
  metrics: StreamMetrics;
}

export class QueryGroup {
  readonly members = new Set<Member>();
  answer: Answer | undefined;
  /** Resolves with the first answer; rejects with the first read's error. */
  readonly ready: Promise<void>;
  private joining = 0;
  private reading = false;
  private dirty = false;
  private closed = false;
  private lastReadAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;

  constructor(
    readonly query: StreamQuery,
    private readonly deps: GroupDeps,
  ) {
    this.ready = this.read(true);
    this.ready.catch(() => this.close());
  }

  /**
   * Holds a place in the group until the first answer (or the first read's error): the group is not
   * dropped while someone is joining. Then attach() or abandon().
   */
  async enter(): Promise<void> {
    this.joining++;
    try {
      await this.ready;
    } catch (error) {
      this.joining--;
      throw error;
    }
  }

  /** After enter(): adds the member and sends it the answer unless it has that one (Last-Event-ID). */
  attach(member: Member, lastEventId: string | undefined): void {
    this.joining--;
    if (this.closed) {
      member.end();
      return;
    }
    this.members.add(member);
    if (this.answer && this.answer.id !== lastEventId) member.send(this.answer);
  }

  /** After enter(): the stream did not start after all. */
  abandon(): void {
    this.joining--;
    this.idleCheck();
  }

  leave(member: Member): void {
    this.members.delete(member);
    this.idleCheck();
  }

  /** A change signal for the group's API. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    if (!this.reading) this.wake(this.lastReadAt + this.deps.minIntervalMs);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.deps.onIdle(this);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private idleCheck(): void {
    if (!this.closed && this.members.size === 0 && this.joining === 0) this.close();
  }

  private wake(at: number): void {
    if (this.closed || at >= this.timerDue) return;
    clearTimeout(this.timer);
    this.timerDue = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerDue = Infinity;
        void this.read(false);
      },
      Math.max(0, at - this.deps.now()),
    );
  }

  private async read(first: boolean): Promise<void> {
    const { deps } = this;
    this.reading = true;
    this.dirty = false;
    this.lastReadAt = deps.now();
    try {
      const read = await deps.read(this.query);
      if (this.closed) return;
      const changed = read.id !== this.answer?.id;
      if (changed) this.answer = { ...read, event: answerEvent(read.id, read.data) };
      deps.metrics.reads.inc({ outcome: changed ? 'changed' : 'same' });
      await this.deliver();
    } catch (error) {
      if (!first) deps.metrics.reads.inc({ outcome: 'failed' });
      if (first) throw error;
      if (deps.isFinal(error)) {
        for (const member of this.members) member.end(error);
        this.members.clear();
      } else deps.onTransient(error, this.query);
    } finally {
      this.reading = false;
      if (!this.closed) this.wake(this.lastReadAt + (this.dirty ? deps.minIntervalMs : deps.refreshMs));
    }
  }

  /** The answer to every member whose credential still reads it; the others end. */
  private async deliver(): Promise<void> {
    const answer = this.answer!;
    const checks = new Map<string, Promise<ApiError | null | 'unknown'>>();
    await Promise.all(
      [...this.members].map(async (member) => {
        let check = checks.get(member.authKey);
        if (!check) {
          // A check that could not be made (Redis away) sends nothing this time and ends nothing.
          check = member.recheck().catch(() => 'unknown' as const);
          checks.set(member.authKey, check);
        }
        const refused = await check;
        if (refused === 'unknown' || !this.members.has(member)) return;
        if (refused) {
          this.members.delete(member);
          member.end(refused);
          return;
        }
        member.send(answer);
      }),
    );
    this.idleCheck();
  }
}

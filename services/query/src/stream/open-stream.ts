/**
 * One open stream: the HTTP response an event goes to. A client that reads slower than answers change
 * gets the latest one, not every one: while the socket's buffer is full, a newer answer replaces the one
 * waiting, and it is written when the buffer drains.
 */
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../http/api-error';
import { errorEnvelope } from '../http/envelope';
import type { Answer, Member } from './query-group';
import { errorEvent, HEARTBEAT } from './sse';

export interface OpenStreamOptions {
  requestId: string;
  docsUrl: string;
  authKey: string;
  recheck: () => Promise<ApiError | null>;
  /** Called once, when the stream ends (either side). */
  onEnd: () => void;
  /** Counts the answer events written. */
  onEvent: () => void;
}

export class OpenStream implements Member {
  readonly authKey: string;
  private lastId: string | undefined;
  private waiting: Answer | undefined;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: OpenStreamOptions,
  ) {
    this.authKey = options.authKey;
    res.on('drain', () => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) this.send(waiting);
    });
    res.once('close', () => this.finish());
  }

  recheck(): Promise<ApiError | null> {
    return this.options.recheck();
  }

  send(answer: Answer): void {
    if (this.ended || answer.id === this.lastId) return;
    if (this.res.writableNeedDrain) {
      this.waiting = answer;
      return;
    }
    this.lastId = answer.id;
    this.res.write(answer.event);
    this.options.onEvent();
  }

  heartbeat(): void {
    if (!this.ended && !this.res.writableNeedDrain) this.res.write(HEARTBEAT);
  }

  end(error?: ApiError): void {
    if (this.ended) return;
    if (error) {
      const { requestId, docsUrl } = this.options;
      this.res.write(
        errorEvent(
          errorEnvelope({ kind: error.kind, detail: error.detail, errors: error.errors, requestId, docsUrl }),
        ),
      );
    }
    this.res.end();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting = undefined;
    this.options.onEnd();
  }
}

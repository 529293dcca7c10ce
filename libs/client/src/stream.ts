/**
 * GET /v1/analytics.stream through fetch and a ReadableStream (docs/api.md#stream): EventSource cannot
 * send the Authorization header. Node 20+ and browsers alike.
 *
 * - Until the first answer, a failure is thrown (an ApiError for an error answer, a NetworkError, or
 *   an ApiError of 404/503 from a service without streams), so a caller can fall back to polling.
 * - Once answers flowed, a dropped connection, the service closing the stream (it stops, or a proxy
 *   cut it) or no byte for `idleTimeoutMs` (heartbeats stopped) reconnects with Last-Event-ID, waiting the
 *   service's `retry:` time with backoff and jitter, or Retry-After for 429/503; the service then sends
 *   the current answer only when it differs from the last one received. Other error answers and an
 *   `error` event end the iteration with an ApiError.
 * - Aborting the signal (or leaving a for-await loop) closes the connection.
 */
import type { Clock } from './clock.js';
import { errorFromAnswer } from './error-mapping.js';
import { ApiError, NetworkError } from './errors.js';
import { timeZoneOf } from './headers.js';
import { parseRetryAfter } from './retry.js';
import { createSseParser, type SseEvent } from './sse-parser.js';
import type { Datapoint, Precision } from './types.js';

export interface StreamAnswer {
  datapoints: Datapoint[];
  precision: Precision;
  /** The event id: a hash of the answer (resume from it with StreamOptions.lastEventId). */
  id: string;
  /** The zone of the answer's day and month slices, as the stream's opening said (X-Time-Zone). */
  timeZone: string;
}

export interface StreamOptions {
  /** Closes the stream; the iteration then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Resume: the first answer is sent only when it differs from this one. */
  lastEventId?: string;
  /** Reconnect after a drop once the stream has started. Default true. */
  reconnect?: boolean;
  /** No byte for this long (heartbeats included) counts as a dropped connection. Default 45 000 ms. */
  idleTimeoutMs?: number;
}

export interface StreamContext {
  url: URL;
  fetch: (input: URL, init: RequestInit) => Promise<Response>;
  token: () => Promise<string>;
  headers: Record<string, string> | undefined;
  clock: Clock;
  random: () => number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 45_000;
const MAX_RECONNECT_DELAY_MS = 30_000;

/** Marks our own idle timeout among abort reasons. */
class Idle {}

export async function* streamAnswers(
  ctx: StreamContext,
  options: StreamOptions = {},
): AsyncGenerator<StreamAnswer, void, undefined> {
  const { signal } = options;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let lastEventId = options.lastEventId;
  let retryMs = 1_000;
  let started = false;
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    let waitMs: number | undefined;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => controller.abort(new Idle()), idleTimeoutMs);
    };
    try {
      const headers: Record<string, string> = {
        accept: 'text/event-stream',
        ...ctx.headers,
        authorization: `Bearer ${await ctx.token()}`,
      };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      touch();
      const response = await ctx.fetch(ctx.url, { method: 'GET', headers, signal: controller.signal });
      if (!response.ok) {
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), ctx.clock.now());
        const error = errorFromAnswer({
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: await response.text(),
          retryAfterMs,
          attempts: failures + 1,
        });
        if (!started || (response.status !== 429 && response.status !== 503)) throw error;
        waitMs = retryAfterMs;
      } else {
        const type = response.headers.get('content-type') ?? '';
        if (!type.startsWith('text/event-stream') || !response.body) {
          throw new ApiError({
            status: response.status,
            type: 'about:blank',
            title: 'Unexpected response',
            detail: `The service answered ${response.status} without an event stream.`,
            requestId: response.headers.get('x-request-id') ?? undefined,
            errors: [],
            retryAfterMs: undefined,
            attempts: 1,
          });
        }
        const events: SseEvent[] = [];
        const parser = createSseParser({
          onEvent: (event) => events.push(event),
          onRetry: (ms) => (retryMs = ms),
        });
        const reader = response.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            touch();
            parser.push(value);
            for (const event of events.splice(0)) {
              if (event.type === 'error') throw errorOfEvent(event, response);
              if (event.type !== 'answer') continue;
              const answer = answerOf(event, timeZoneOf(response));
              lastEventId = answer.id;
              started = true;
              failures = 0;
              yield answer;
            }
          }
        } finally {
          await reader.cancel().catch(() => undefined);
        }
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const idled = controller.signal.reason instanceof Idle;
      if (error instanceof ApiError && !idled) throw error;
      if (!started) {
        if (idled) throw new NetworkError(`no byte of the stream for ${idleTimeoutMs} ms`, failures + 1);
        throw new NetworkError(`GET ${ctx.url.pathname} failed: ${messageOf(error)}`, failures + 1, {
          cause: error,
        });
      }
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', onAbort);
      controller.abort(); // a stream left early (return, throw) closes its connection
    }
    if (options.reconnect === false) return;
    failures++;
    const backoff = Math.min(MAX_RECONNECT_DELAY_MS, retryMs * 2 ** (failures - 1));
    await ctx.clock.sleep(waitMs ?? Math.round(backoff / 2 + (ctx.random() * backoff) / 2), signal);
  }
}

function answerOf(event: SseEvent, timeZone: string): StreamAnswer {
  const parsed = JSON.parse(event.data) as { data: Datapoint[]; precision: Precision };
  return { datapoints: parsed.data, precision: parsed.precision, id: event.id, timeZone };
}

function errorOfEvent(event: SseEvent, response: Response): ApiError {
  let status = 500;
  try {
    const parsed = JSON.parse(event.data) as { error?: { status?: unknown } };
    if (typeof parsed.error?.status === 'number') status = parsed.error.status;
  } catch {
    // not an envelope: errorFromAnswer makes a generic error of it
  }
  return errorFromAnswer({
    status,
    statusText: '',
    headers: response.headers,
    body: event.data,
    retryAfterMs: undefined,
    attempts: 1,
  });
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * The bytes of GET /v1/analytics.stream (Server-Sent Events, docs/api.md#stream). Pure.
 *
 * An answer event is written once per distinct query and answer and the same bytes go to every stream
 * sharing it. Its id is a hash of its data: two events with one id carry the same answer, on any
 * instance of the service, so a client resuming with Last-Event-ID is sent the current answer only
 * when it differs from the one it has. Error events carry no id (the last answer's id stays the one
 * to resume from).
 */
import { createHash } from 'node:crypto';
import type { ErrorEnvelope } from '@va/contracts';
import { STREAM_ANSWER_EVENT, STREAM_ERROR_EVENT } from '@va/contracts';
import type { Precision } from '@va/core';

/** Characters of an answer's id (base64url of SHA-256: 96 bits). */
const ID_LENGTH = 16;

/** The reconnection delay a client is asked to wait (EventSource's `retry:` field). */
export const RETRY_MS = 1_000;

/** `{"data":<rows>,"precision":"<p>"}`: the StreamAnswer schema of @va/contracts, as bytes. */
export function answerData(rows: Iterable<Uint8Array>, precision: Precision): Buffer {
  return Buffer.concat([
    Buffer.from('{"data":'),
    ...[...rows].map((piece) => Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)),
    Buffer.from(`,"precision":"${precision}"}`),
  ]);
}

/** The id of an answer: a short hash of its data. */
export function answerId(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('base64url').slice(0, ID_LENGTH);
}

/** An `answer` event. `data` is one line of JSON (JSON text escapes CR and LF inside strings). */
export function answerEvent(id: string, data: Uint8Array): Buffer {
  return Buffer.concat([
    Buffer.from(`id: ${id}\nevent: ${STREAM_ANSWER_EVENT}\ndata: `),
    data,
    Buffer.from('\n\n'),
  ]);
}

/** An `error` event: the error envelope of docs/api.md#errors; the stream ends after it. */
export function errorEvent(envelope: ErrorEnvelope): Buffer {
  return Buffer.from(`event: ${STREAM_ERROR_EVENT}\ndata: ${JSON.stringify(envelope)}\n\n`);
}

/** The first bytes of a stream: the reconnection delay (a field without data dispatches no event). */
export const OPENING = Buffer.from(`: va stream\nretry: ${RETRY_MS}\n\n`);

/** A comment line: nothing for the client, traffic for the proxies between (they close idle connections). */
export const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * Answers as JSON bytes, sent in pieces: a 100,000-row answer is ~20 MB of JSON, which as one
 * string costs a flatten and two copies on the main thread (fastify's serializer, then
 * @fastify/compress turning the string into a Buffer), and holds the event loop for the whole
 * of it. A stream of pieces goes through compression piece by piece (zlib works off the
 * main thread), and the event loop gets a turn between pieces.
 */
import { Readable } from 'node:stream';
import type { RowsJson } from '@va/core';

/** Rows per written piece: about a millisecond of work, ~200 KB of JSON. */
export const ROWS_PER_PIECE = 1_000;
/** Bytes per piece of an answer already written (a worker's). */
const BYTES_PER_PIECE = 64 * 1024;

/**
 * The whole JSON of the rows as one Buffer over an ArrayBuffer of its own (never Node's shared
 * pool of small Buffers), so that a worker can move it to the main thread.
 */
export function jsonBytes(rows: RowsJson): Buffer {
  const pieces = [...rows.pieces(ROWS_PER_PIECE)];
  const out = Buffer.allocUnsafeSlow(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * The body to send: small answers as one Buffer; larger ones as a stream of pieces, written
 * one at a time as the response takes them.
 */
export function jsonBody(rows: RowsJson): Buffer | Readable {
  const pieces = rows.pieces(ROWS_PER_PIECE);
  if (rows.length <= ROWS_PER_PIECE) return toBuffer(pieces.next().value!);
  return Readable.from(
    (function* () {
      for (const piece of pieces) yield toBuffer(piece);
    })(),
    { objectMode: false },
  );
}

const toBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Bytes written already (a worker's answer): one Buffer when small, else a stream of views into it. */
export function bytesBody(bytes: Buffer): Buffer | Readable {
  if (bytes.length <= BYTES_PER_PIECE) return bytes;
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += BYTES_PER_PIECE) {
        yield bytes.subarray(at, Math.min(bytes.length, at + BYTES_PER_PIECE));
      }
    })(),
    { objectMode: false },
  );
}

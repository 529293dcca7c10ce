/**
 * Response compression negotiated by Accept-Encoding (br, gzip, deflate) with
 * @fastify/compress; small answers (most error envelopes, short row lists) go as they are.
 * Brotli runs at a low quality: at the default (11) it costs far more CPU than a large
 * answer saves in transfer. A worker of the read pool compresses its answer with the same
 * settings (compressBytes) and the plugin then leaves it alone (Content-Encoding is set).
 */
import { negotiate } from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { App } from './app';

export const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
export type Encoding = (typeof ENCODINGS)[number];
/** Answers smaller than this go uncompressed. */
const THRESHOLD = 1024;
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

export async function registerCompression(app: App): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: THRESHOLD,
    encodings: [...ENCODINGS],
    brotliOptions,
  });
}

/**
 * The encoding @fastify/compress would choose for an Accept-Encoding header (same negotiator,
 * same aliases: `*` and `x-gzip` are gzip), or null for none: a worker of the read pool
 * compresses its answer itself, so that the main thread handles ~0.4 MB instead of ~20 MB.
 */
export function negotiateEncoding(header: string | string[] | undefined): Encoding | null {
  if (typeof header !== 'string') return null;
  const found = negotiate(header.toLowerCase().replace(/\*|x-gzip/gu, 'gzip'), [...ENCODINGS]);
  return (found as Encoding | null) ?? null;
}

/** Compresses as @fastify/compress does (same brotli quality, zlib defaults); null when too small to bother. */
export function compressBytes(bytes: Uint8Array, encoding: Encoding): Buffer | null {
  if (bytes.length < THRESHOLD) return null;
  switch (encoding) {
    case 'br':
      return brotliCompressSync(bytes, brotliOptions);
    case 'gzip':
      return gzipSync(bytes);
    case 'deflate':
      return deflateSync(bytes);
  }
}

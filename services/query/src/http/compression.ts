/**
 * Response compression negotiated by Accept-Encoding (br, gzip, deflate) with
 * @fastify/compress; small answers (most error envelopes, short row lists) go as they are.
 * Brotli runs at a low quality: at the default (11) it costs far more CPU than a large
 * answer saves in transfer.
 */
import compress from '@fastify/compress';
import { constants } from 'node:zlib';
import type { App } from './app';

export async function registerCompression(app: App): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
}

import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressBytes, negotiateEncoding } from './compression';

describe('negotiateEncoding', () => {
  it('chooses as @fastify/compress does: br first, q-values, * and x-gzip as gzip', () => {
    expect(negotiateEncoding('gzip, deflate, br')).toBe('br');
    expect(negotiateEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(negotiateEncoding('X-GZIP')).toBe('gzip');
    expect(negotiateEncoding('*')).toBe('gzip');
    expect(negotiateEncoding('deflate')).toBe('deflate');
    expect(negotiateEncoding('identity')).toBeNull();
    expect(negotiateEncoding(undefined)).toBeNull();
  });
});

describe('compressBytes', () => {
  it('compresses answers of 1 KB and more, and leaves smaller ones alone', () => {
    const json = Buffer.from(JSON.stringify(Array.from({ length: 200 }, (_, n) => ({ n, valid: n % 3 }))));
    expect(gunzipSync(compressBytes(json, 'gzip')!)).toEqual(json);
    expect(brotliDecompressSync(compressBytes(json, 'br')!)).toEqual(json);
    expect(inflateSync(compressBytes(json, 'deflate')!)).toEqual(json);
    expect(compressBytes(json.subarray(0, 1023), 'gzip')).toBeNull();
  });
});

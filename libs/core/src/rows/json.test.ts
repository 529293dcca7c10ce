import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter, capacityFor, jsonText } from './json';

const written = (write: (out: ByteWriter) => void, capacity?: number) => {
  const out = new ByteWriter(capacity);
  write(out);
  return new TextDecoder().decode(out.take());
};

describe('ByteWriter', () => {
  it('writes numbers as JSON.stringify does', () => {
    const samples = [
      0,
      9,
      10,
      99,
      100,
      1_000_000,
      1_763_000_000_000,
      Number.MAX_SAFE_INTEGER,
      -1,
      -0,
      2 ** 53,
      1.5,
    ];
    for (const n of samples)
      expect(written((out) => (out.reserve(32), out.number(n)))).toBe(JSON.stringify(n));
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(written((out) => (out.reserve(32), out.number(n)))).toBe(String(n));
      }),
    );
  });

  it('writes strings as UTF-8', () => {
    for (const s of ['', 'abc', '"é"', 'a😀b', '\u0001', 'x'.repeat(100_000) + 'é']) {
      expect(written((out) => out.text(s), 4)).toBe(s);
    }
  });

  it('grows past its capacity and starts afresh after take', () => {
    const out = new ByteWriter(4);
    const piece = jsonText('"abcdef"');
    out.reserve(piece.length * 3);
    for (let i = 0; i < 3; i++) out.bytes(piece);
    const first = out.take();
    expect(new TextDecoder().decode(first)).toBe('"abcdef"'.repeat(3));
    out.reserve(1);
    out.char(0x5b);
    expect(new TextDecoder().decode(out.take())).toBe('[');
    expect(new TextDecoder().decode(first)).toBe('"abcdef"'.repeat(3)); // untouched by later writes
  });

  it('done hands the last piece without a fresh buffer', () => {
    const out = new ByteWriter(capacityFor(2, 16));
    out.reserve(1);
    out.char(0x5b);
    const first = out.take();
    out.reserve(2);
    out.char(0x31);
    out.char(0x5d);
    const last = out.done();
    expect(new TextDecoder().decode(first) + new TextDecoder().decode(last)).toBe('[1]');
    expect(last.buffer.byteLength).toBe(capacityFor(2, 16));
    expect(capacityFor(1_000_000, 400)).toBe(64 * 1024);
  });
});

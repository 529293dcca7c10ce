/**
 * JSON bytes written straight into a growing Uint8Array: the answer's rows are plain
 * integers and a few strings per group, and writing them as bytes costs a fraction of
 * building row objects, JSON.stringify and a UTF-8 encode of a 20 MB string (profiled: that
 * path was most of a 100,000-row answer's time and garbage).
 */

const utf8 = new TextEncoder();
export const jsonText = (text: string): Uint8Array => utf8.encode(text);

const ZERO = 48;

/** A writer's capacity for `rows` rows of `rowBytes` or so: no more than a piece of a large answer needs. */
export const capacityFor = (rows: number, rowBytes: number): number =>
  Math.min(64 * 1024, 64 + rows * rowBytes);

export class ByteWriter {
  private buf: Uint8Array;
  private at = 0;

  constructor(private readonly capacity = 64 * 1024) {
    this.buf = new Uint8Array(capacity);
  }

  get length(): number {
    return this.at;
  }

  /** Room for at least `n` more bytes. */
  reserve(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    grown.set(this.buf.subarray(0, this.at));
    this.buf = grown;
  }

  /** One ASCII character (reserved by the caller). */
  char(code: number): void {
    this.buf[this.at++] = code;
  }

  /** Bytes (reserved by the caller): a loop, faster than set() for the short pieces of a row. */
  bytes(b: Uint8Array): void {
    const buf = this.buf;
    let at = this.at;
    for (let k = 0; k < b.length; k++) buf[at++] = b[k]!;
    this.at = at;
  }

  /**
   * A string's UTF-8 bytes (JSON text already: quotes and escapes are the caller's). ASCII is
   * copied in a loop; the rest goes through TextEncoder.encodeInto. No allocation per call
   * in the usual ASCII case (small Uint8Arrays are slow to allocate in V8).
   */
  text(s: string): void {
    this.reserve(s.length * 3);
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        at += utf8.encodeInto(s.slice(i), buf.subarray(at)).written;
        break;
      }
      buf[at++] = c;
    }
    this.at = at;
  }

  /** A number as JSON writes it; non-negative safe integers (every count and time) without a string. */
  number(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      const text = jsonText(JSON.stringify(n));
      this.reserve(text.length);
      this.bytes(text);
      return;
    }
    const buf = this.buf;
    if (n < 10) {
      buf[this.at++] = ZERO + n;
      return;
    }
    let digits = 1;
    for (let m = 10; m <= n; m *= 10) digits++;
    for (let k = this.at + digits - 1; k >= this.at; k--) {
      const q = Math.floor(n / 10);
      buf[k] = ZERO + (n - q * 10);
      n = q;
    }
    this.at += digits;
  }

  /** What was written since the last take, in a view of its own buffer; the writer starts afresh. */
  take(): Uint8Array {
    const out = this.buf.subarray(0, this.at);
    this.buf = new Uint8Array(this.capacity);
    this.at = 0;
    return out;
  }

  /**
   * The last piece: take() without a fresh buffer for writes that will not come (a light
   * answer's one piece would cost two buffers of `capacity` otherwise). The writer is done.
   */
  done(): Uint8Array {
    const out = this.buf.subarray(0, this.at);
    this.buf = new Uint8Array(0);
    this.at = 0;
    return out;
  }
}

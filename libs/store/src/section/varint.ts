/**
 * Unsigned LEB128 varints over plain byte arrays, for integers up to 2^53 (counts and dictionary
 * codes). Hand-written rather than a dependency: it is a dozen lines on the read path's hottest
 * loop, and the packages on npm either stop at 32 bits or allocate per value.
 */
export class ByteWriter {
  private buffer = new Uint8Array(256);
  length = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }

  varint(value: number): void {
    this.reserve(8);
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.length++] = v;
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

export class ByteReader {
  offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    offset = 0,
  ) {
    this.offset = offset;
  }

  varint(): number {
    const bytes = this.bytes;
    let byte = bytes[this.offset++]!;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    for (;;) {
      if (this.offset >= bytes.length) throw new Error('section: truncated varint');
      byte = bytes[this.offset++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }
}

/**
 * Sealed sections (docs/store-v2.md): the counters of one cube of one closed-for-now bucket,
 * packed into one Redis string by the compactor and decoded by the query service into typed
 * arrays. Pure: no I/O.
 *
 * A section is a table of rows sorted by their dimension codes (lexicographically), each row
 * holding the nine outcome counts (OUTCOMES order). Rows whose counts are all 0 are not stored.
 *
 * Bytes (little endian):
 *   0   "VS"             magic
 *   2   u8  format       SECTION_FORMAT
 *   3   u8  flags        bit 0: payload is deflate-raw compressed (node:zlib)
 *   4   f64 version      seal sequence of the API (INCR of its `seq` key): changes whenever the
 *                        section is rewritten, so a reader may cache the decoded section under it;
 *                        Lua compares these 8 bytes (GETRANGE key 4 11) with the cached ones
 *   12  u8  cube         SectionCube as an ASCII letter
 *   13  u8  dims         number of dimension columns
 *   14  u16 reserved     0
 *   16  u32 rows           (SECTION_ROWS_OFFSET: a reader sizes a read with GETRANGE key 16 19)
 *   20  u32 raw length   payload length before compression
 *   24  payload
 * Payload, column by column, all unsigned LEB128 varints:
 *   per dimension d: one code per row; dimension 0 as the difference to the previous row's,
 *     dimension d > 0 as the difference to the previous row's when dimensions 0..d-1 are equal
 *     to the previous row's (sorted order makes it non-negative), else the code itself;
 *   one outcome mask per row (bit o set = outcome o is non-zero);
 *   the non-zero counts of each row, in outcome order.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { OUTCOME_COUNT } from '@va/contracts';
import { ByteReader, ByteWriter } from './varint';

/**
 * Cubes a section can hold: the five counter cubes of keys.ts, and `x` (identity × key), which
 * exists only sealed: the compactor derives it from `f` so that per-key questions about one
 * identity do not read the tag-set detail.
 *   t  no dimension        k  [key]        i  [identity]        s  [set]
 *   x  [identity, key]     f  [identity, key, set]
 * Identity columns hold NO_IDENTITY for events without an identity (f's "_" part).
 */
export type SectionCube = 't' | 'k' | 'i' | 's' | 'x' | 'f';
export const SECTION_CUBES: readonly SectionCube[] = ['t', 'k', 'i', 's', 'x', 'f'];
export const SECTION_DIMS: Readonly<Record<SectionCube, number>> = { t: 0, k: 1, i: 1, s: 1, x: 2, f: 3 };
/** Identity code of events without an identity in x and f (sorts last). */
export const NO_IDENTITY = 0xffffffff;

export const SECTION_FORMAT = 1;
export const SECTION_HEADER_BYTES = 24;
/** Where the version sits in the header (for GETRANGE key 4 11). */
export const SECTION_VERSION_OFFSET = 4;
/** Where the row count sits in the header (u32: GETRANGE key 16 19 tells a read's size unread). */
export const SECTION_ROWS_OFFSET = 16;
/** Payloads at least this long are compressed when that makes them smaller. */
const COMPRESS_MIN_BYTES = 128;

export interface Section {
  cube: SectionCube;
  version: number;
  rows: number;
  /** One column per dimension, `rows` codes each; rows sorted by (dims[0], dims[1], ...). */
  dims: Uint32Array[];
  /** rows × OUTCOME_COUNT counts, row-major. */
  counts: Float64Array;
}

/** Rows by their dimension codes, as a builder collects them before encoding. */
export class SectionRows {
  private readonly rows = new Map<string, { dims: number[]; counts: number[] }>();

  constructor(readonly cube: SectionCube) {}

  get size(): number {
    return this.rows.size;
  }

  /** Adds n to one outcome of the row with these dimension codes. */
  add(dims: readonly number[], outcome: number, n: number): void {
    if (dims.length !== SECTION_DIMS[this.cube]) throw new Error(`section ${this.cube}: ${dims.length} dims`);
    const id = dims.join('.');
    let row = this.rows.get(id);
    if (!row) {
      row = { dims: [...dims], counts: new Array<number>(OUTCOME_COUNT).fill(0) };
      this.rows.set(id, row);
    }
    row.counts[outcome]! += n;
  }

  /** Adds every row of a decoded section. */
  addSection(section: Section): void {
    const dims = new Array<number>(section.dims.length);
    for (let r = 0; r < section.rows; r++) {
      for (let d = 0; d < dims.length; d++) dims[d] = section.dims[d]![r]!;
      for (let o = 0; o < OUTCOME_COUNT; o++) {
        const n = section.counts[r * OUTCOME_COUNT + o]!;
        if (n !== 0) this.add(dims, o, n);
      }
    }
  }

  /** The rows as a section (sorted, zero rows dropped). */
  toSection(version: number): Section {
    const live = [...this.rows.values()].filter((row) => row.counts.some((n) => n !== 0));
    live.sort((a, b) => compareDims(a.dims, b.dims));
    const dims = Array.from({ length: SECTION_DIMS[this.cube] }, () => new Uint32Array(live.length));
    const counts = new Float64Array(live.length * OUTCOME_COUNT);
    live.forEach((row, r) => {
      row.dims.forEach((code, d) => (dims[d]![r] = code));
      row.counts.forEach((n, o) => (counts[r * OUTCOME_COUNT + o] = n));
    });
    return { cube: this.cube, version, rows: live.length, dims, counts };
  }
}

function compareDims(a: readonly number[], b: readonly number[]): number {
  for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return a[d]! - b[d]!;
  return 0;
}

/**
 * `compress: false`: never deflate the payload (an open hour's f part, open-f-parts.ts: it lives until the
 * hour's next seal, a minute or so, and is decoded by every read of its shard meanwhile).
 */
export function encodeSection(section: Section, { compress = true }: { compress?: boolean } = {}): Buffer {
  const { rows, dims, counts } = section;
  const payload = new ByteWriter();
  dims.forEach((column, d) => {
    for (let r = 0; r < rows; r++) {
      const code = column[r]!;
      if (r > 0 && (d === 0 || prefixEqual(dims, d, r))) {
        const delta = code - column[r - 1]!;
        if (delta < 0) throw new Error('section: rows are not sorted');
        payload.varint(delta);
      } else payload.varint(code);
    }
  });
  for (let r = 0; r < rows; r++) {
    let mask = 0;
    for (let o = 0; o < OUTCOME_COUNT; o++) if (counts[r * OUTCOME_COUNT + o] !== 0) mask |= 1 << o;
    payload.varint(mask);
  }
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < OUTCOME_COUNT; o++) {
      const n = counts[r * OUTCOME_COUNT + o]!;
      if (n < 0 || !Number.isSafeInteger(n))
        throw new Error(`section: count ${n} is not a safe non-negative integer`);
      if (n !== 0) payload.varint(n);
    }
  }
  const raw = payload.bytes();
  let body: Uint8Array = raw;
  let flags = 0;
  if (compress && raw.length >= COMPRESS_MIN_BYTES) {
    const packed = deflateRawSync(raw);
    if (packed.length < raw.length) {
      body = packed;
      flags |= 1;
    }
  }
  const out = Buffer.allocUnsafe(SECTION_HEADER_BYTES + body.length);
  out.write('VS', 0, 'latin1');
  out.writeUInt8(SECTION_FORMAT, 2);
  out.writeUInt8(flags, 3);
  out.writeDoubleLE(section.version, SECTION_VERSION_OFFSET);
  out.write(section.cube, 12, 'latin1');
  out.writeUInt8(dims.length, 13);
  out.writeUInt16LE(0, 14);
  out.writeUInt32LE(rows, SECTION_ROWS_OFFSET);
  out.writeUInt32LE(raw.length, 20);
  out.set(body, SECTION_HEADER_BYTES);
  return out;
}

/** Whether dims 0..d-1 of row r equal those of row r-1. */
function prefixEqual(dims: readonly Uint32Array[], d: number, r: number): boolean {
  for (let e = 0; e < d; e++) if (dims[e]![r] !== dims[e]![r - 1]) return false;
  return true;
}

/** The version of an encoded section (its header), without decoding the rest. */
export function sectionVersion(bytes: Uint8Array): number {
  checkHeader(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readDoubleLE(SECTION_VERSION_OFFSET);
}

/** The version held by the 8 header bytes (GETRANGE key 4 11): the inverse of versionBytes. */
export function versionOfBytes(bytes: Buffer): number {
  if (bytes.length !== 8) throw new Error(`section: a version is 8 bytes, not ${bytes.length}`);
  return bytes.readDoubleLE(0);
}

/** The 8 header bytes holding the version, as Lua compares them (GETRANGE key 4 11). */
export function versionBytes(version: number): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeDoubleLE(version, 0);
  return out;
}

function checkHeader(bytes: Uint8Array): void {
  if (bytes.length < SECTION_HEADER_BYTES || bytes[0] !== 0x56 || bytes[1] !== 0x53) {
    throw new Error('section: bad magic');
  }
  if (bytes[2] !== SECTION_FORMAT) throw new Error(`section: unknown format ${bytes[2]}`);
}

export function decodeSection(bytes: Uint8Array): Section {
  checkHeader(bytes);
  const header = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = header.readUInt8(3);
  const version = header.readDoubleLE(SECTION_VERSION_OFFSET);
  const cube = String.fromCharCode(header.readUInt8(12)) as SectionCube;
  if (!SECTION_CUBES.includes(cube)) throw new Error(`section: unknown cube ${cube}`);
  const dimCount = header.readUInt8(13);
  if (dimCount !== SECTION_DIMS[cube]) throw new Error(`section: cube ${cube} with ${dimCount} dims`);
  const rows = header.readUInt32LE(SECTION_ROWS_OFFSET);
  const rawLength = header.readUInt32LE(20);
  const body = bytes.subarray(SECTION_HEADER_BYTES);
  const raw = flags & 1 ? inflateRawSync(body) : body;
  if (raw.length !== rawLength) throw new Error('section: payload length mismatch');
  const reader = new ByteReader(raw);
  const dims: Uint32Array[] = [];
  for (let d = 0; d < dimCount; d++) {
    const column = new Uint32Array(rows);
    for (let r = 0; r < rows; r++) {
      const v = reader.varint();
      column[r] = r > 0 && (d === 0 || prefixEqual(dims, d, r)) ? column[r - 1]! + v : v;
    }
    dims.push(column);
  }
  const masks = new Uint16Array(rows);
  for (let r = 0; r < rows; r++) masks[r] = reader.varint();
  const counts = new Float64Array(rows * OUTCOME_COUNT);
  for (let r = 0; r < rows; r++) {
    const mask = masks[r]!;
    for (let o = 0; o < OUTCOME_COUNT; o++)
      if (mask & (1 << o)) counts[r * OUTCOME_COUNT + o] = reader.varint();
  }
  if (reader.offset !== raw.length) throw new Error('section: trailing bytes');
  return { cube, version, rows, dims, counts };
}

/**
 * The rows [from, to) whose first dimension equals `code` (binary search; rows are sorted).
 * For x and f this is one identity's rows; for k, i and s one code's row.
 */
export function rowsOfFirst(section: SectionData, code: number): [number, number] {
  const column = section.dims[0];
  if (!column) return [0, section.rows];
  const lower = (target: number): number => {
    let lo = 0;
    let hi = section.rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (column[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return [lower(code), code === NO_IDENTITY ? section.rows : lower(code + 1)];
}

/** A section's rows, with counts as decoded (Float64Array) or as a reader keeps them (Uint32Array). */
export interface SectionData extends Omit<Section, 'counts'> {
  counts: Float64Array | Uint32Array;
}

/** Order of row ra of a against row rb of b (same cube): negative, 0 or positive. */
function compareRows(a: SectionData, ra: number, b: SectionData, rb: number): number {
  for (let d = 0; d < a.dims.length; d++) {
    const diff = a.dims[d]![ra]! - b.dims[d]![rb]!;
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Index of the first row of a at or after `from` that does not sort before row rb of b. */
function firstNotBefore(a: SectionData, from: number, b: SectionData, rb: number): number {
  let lo = from;
  let hi = a.rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareRows(a, mid, b, rb) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The sum of two sections of one cube, as a section of `version`: a merge of their sorted rows
 * (a sealer adds a small delta `b` to a large section `a`: the runs of `a` between two rows of `b`
 * are found by binary search and copied whole, so sorting or hashing `a` again is never needed).
 * Counts are never negative, so a sum of stored rows is never all zeros.
 */
export function mergeSections(a: SectionData, b: SectionData, version: number): Section {
  if (a.cube !== b.cube) throw new Error(`mergeSections of ${a.cube} and ${b.cube}`);
  const dimCount = a.dims.length;
  const capacity = a.rows + b.rows;
  const dims = Array.from({ length: dimCount }, () => new Uint32Array(capacity));
  const counts = new Float64Array(capacity * OUTCOME_COUNT);
  let rows = 0;
  let ia = 0;
  const copyRun = (from: SectionData, start: number, end: number): void => {
    if (end <= start) return;
    for (let d = 0; d < dimCount; d++) dims[d]!.set(from.dims[d]!.subarray(start, end), rows);
    counts.set(from.counts.subarray(start * OUTCOME_COUNT, end * OUTCOME_COUNT), rows * OUTCOME_COUNT);
    rows += end - start;
  };
  for (let ib = 0; ib < b.rows; ib++) {
    const stop = firstNotBefore(a, ia, b, ib);
    copyRun(a, ia, stop);
    ia = stop;
    copyRun(b, ib, ib + 1);
    if (ia < a.rows && compareRows(a, ia, b, ib) === 0) {
      const into = (rows - 1) * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) counts[into + o]! += a.counts[ia * OUTCOME_COUNT + o]!;
      ia++;
    }
  }
  copyRun(a, ia, a.rows);
  return {
    cube: a.cube,
    version,
    rows,
    dims: dims.map((column) => column.slice(0, rows)),
    counts: counts.slice(0, rows * OUTCOME_COUNT),
  };
}

/**
 * The sum of any number of sections of one cube, as a section of `version`: merged in pairs, as a
 * tree, so that k parts of n rows in all cost O(n log k) rather than k passes over a growing sum.
 */
export function sumSections(cube: SectionCube, sections: readonly SectionData[], version: number): Section {
  if (sections.length === 0) return emptySection(cube, version);
  let level: SectionData[] = [...sections];
  while (level.length > 1) {
    const next: SectionData[] = [];
    for (let n = 0; n + 1 < level.length; n += 2) next.push(mergeSections(level[n]!, level[n + 1]!, version));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  const [only] = level;
  if (only!.cube !== cube) throw new Error(`sumSections of ${only!.cube} as ${cube}`);
  return mergeSections(emptySection(cube, version), only!, version);
}

/** An empty section of a cube. */
export const emptySection = (cube: SectionCube, version = 0): Section => ({
  cube,
  version,
  rows: 0,
  dims: Array.from({ length: SECTION_DIMS[cube] }, () => new Uint32Array(0)),
  counts: new Float64Array(0),
});

/**
 * The x section (identity × key) of an f section: its rows summed over tag sets. f is sorted by
 * (identity, key, set), so the rows of one (identity, key) are adjacent: one linear pass.
 */
export function deriveIdentityKey(f: Section, version: number): Section {
  if (f.cube !== 'f') throw new Error(`deriveIdentityKey of cube ${f.cube}`);
  const identities = new Uint32Array(f.rows);
  const keys = new Uint32Array(f.rows);
  const counts = new Float64Array(f.rows * OUTCOME_COUNT);
  let rows = 0;
  for (let r = 0; r < f.rows; r++) {
    const identity = f.dims[0]![r]!;
    const key = f.dims[1]![r]!;
    if (rows === 0 || identities[rows - 1] !== identity || keys[rows - 1] !== key) {
      identities[rows] = identity;
      keys[rows] = key;
      rows++;
    }
    for (let o = 0; o < OUTCOME_COUNT; o++)
      counts[(rows - 1) * OUTCOME_COUNT + o]! += f.counts[r * OUTCOME_COUNT + o]!;
  }
  return {
    cube: 'x',
    version,
    rows,
    dims: [identities.slice(0, rows), keys.slice(0, rows)],
    counts: counts.slice(0, rows * OUTCOME_COUNT),
  };
}

/**
 * The sections of the five counter cubes (t, k, i, s, f) of a set of counted tuples (key, identity,
 * tag set, outcome): what ingest appends to a closed bucket as section parts instead of hash
 * increments (docs/store-v2.md "History written as section parts"). Pure.
 *
 * The same counts as the hash fields of aggregate.ts `expand`: t counts every tuple; k by key; i by
 * identity, tuples without an identity left out; s by tag set; f by (identity, key, tag set), with
 * NO_IDENTITY for tuples without one.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import type { Cube } from '../keys';
import { PackedCounts } from '../packed-counts';
import { NO_IDENTITY, SECTION_DIMS, type Section } from './codec';

/**
 * Rows of one cube in insertion order, found by an id. A numeric id is the row's sort key (its codes
 * packed so that numeric order is the section's row order): the rows are then sorted natively as a
 * typed array. A string id (codes past the packed range) falls back to comparing the code columns.
 */
class RowTable {
  private readonly ids = new Map<number | string, number>();
  private readonly columns: number[][];
  private readonly counts: number[] = [];
  private wide = false;

  constructor(private readonly cube: Cube) {
    this.columns = Array.from({ length: SECTION_DIMS[cube] }, () => []);
  }

  /** Distinct rows so far. */
  get size(): number {
    return this.ids.size;
  }

  /** Adds n to outcome o of the row `id` with dimension codes d0, d1, d2 (as many as the cube has). */
  add(id: number | string, d0: number, d1: number, d2: number, o: number, n: number): void {
    let row = this.ids.get(id);
    if (row === undefined) {
      row = this.ids.size;
      this.ids.set(id, row);
      if (typeof id === 'string') this.wide = true;
      const dims = this.columns.length;
      if (dims > 0) this.columns[0]!.push(d0);
      if (dims > 1) this.columns[1]!.push(d1);
      if (dims > 2) this.columns[2]!.push(d2);
      for (let p = 0; p < OUTCOME_COUNT; p++) this.counts.push(0);
    }
    this.counts[row * OUTCOME_COUNT + o]! += n;
  }

  /** Row indices in the section's order. */
  private order(): Uint32Array {
    const size = this.ids.size;
    const order = new Uint32Array(size);
    if (!this.wide) {
      const keys = new Float64Array(size);
      let n = 0;
      for (const key of this.ids.keys()) keys[n++] = key as number;
      keys.sort();
      for (let r = 0; r < size; r++) order[r] = this.ids.get(keys[r]!)!;
      return order;
    }
    for (let r = 0; r < size; r++) order[r] = r;
    const columns = this.columns;
    return order.sort((a, b) => {
      for (const column of columns) if (column[a] !== column[b]) return column[a]! - column[b]!;
      return 0;
    });
  }

  /** The rows sorted by their codes, as a section of version 0. */
  toSection(): Section {
    const order = this.order();
    const rows = order.length;
    const dims = this.columns.map((column) => {
      const codes = new Uint32Array(rows);
      for (let to = 0; to < rows; to++) codes[to] = column[order[to]!]!;
      return codes;
    });
    const counts = new Float64Array(rows * OUTCOME_COUNT);
    for (let to = 0; to < rows; to++) {
      const from = order[to]! * OUTCOME_COUNT;
      for (let o = 0; o < OUTCOME_COUNT; o++) counts[to * OUTCOME_COUNT + o] = this.counts[from + o]!;
    }
    return { cube: this.cube, version: 0, rows, dims, counts };
  }
}

/**
 * The sort key of an f row while the codes fit 49 bits (identity < 2^16 - 1, key < 2^20, set < 2^13):
 * identity, then key, then set, with no identity (NO_IDENTITY, the largest code) last.
 */
const F_NONE = 2 ** 16 - 1;
function fRowId(k: number, i: number, s: number): number | string {
  const first = i >= 0 ? i : F_NONE;
  if (k < 2 ** 20 && s < 2 ** 13 && (i < F_NONE || i < 0)) return (first * 2 ** 20 + k) * 2 ** 13 + s;
  return `${i}.${k}.${s}`;
}

export interface TupleSource {
  /** Calls fn for every counted tuple (i = -1: no identity); a tuple may come more than once. */
  forEach(fn: (h: number, k: number, i: number, s: number, o: number, n: number) => void): void;
}

/**
 * The f cube's rows of sectionsOfTuples (and of an open hour's f parts, open-f-parts.ts), tuple by tuple. f has the most rows of the five cubes, and a row id past 2^31 is a
 * heap number per row in a Map: so while every id is numeric the (row id, outcome) pairs are counted in a
 * PackedCounts (row id * 16 + outcome < 2^53: typed arrays, no allocation per row) and sorted natively at the
 * end; a tuple whose codes do not fit moves every row into a RowTable.
 */
export class FRows {
  private readonly packed = new PackedCounts();
  private wide: RowTable | undefined;

  add(key: number, identity: number, set: number, o: number, n: number): void {
    const id = fRowId(key, identity, set);
    if (this.wide === undefined && typeof id === 'number') {
      this.packed.add(id * 16 + o, n);
      return;
    }
    if (this.wide === undefined) {
      const wide = (this.wide = new RowTable('f'));
      this.packed.forEach((packed, count) => {
        const [rowId, identity, k, s, outcome] = unpackF(packed);
        wide.add(rowId, identity, k, s, outcome, count);
      });
    }
    this.wide.add(id, identity >= 0 ? identity : NO_IDENTITY, key, set, o, n);
  }

  toSection(): Section {
    if (this.wide) return this.wide.toSection();
    const size = this.packed.size;
    const keys = new Float64Array(size);
    let e = 0;
    this.packed.forEach((key) => (keys[e++] = key));
    keys.sort();
    let rows = 0;
    for (let p = 0; p < size; p++)
      if (p === 0 || Math.floor(keys[p]! / 16) !== Math.floor(keys[p - 1]! / 16)) rows++;
    const dims = [new Uint32Array(rows), new Uint32Array(rows), new Uint32Array(rows)] as const;
    const counts = new Float64Array(rows * OUTCOME_COUNT);
    let row = -1;
    let last = -1;
    for (let p = 0; p < size; p++) {
      const [rowId, identity, k, s, o] = unpackF(keys[p]!);
      if (rowId !== last) {
        last = rowId;
        row++;
        dims[0][row] = identity;
        dims[1][row] = k;
        dims[2][row] = s;
      }
      counts[row * OUTCOME_COUNT + o] = this.packed.countOf(keys[p]!);
    }
    return { cube: 'f', version: 0, rows, dims: [...dims], counts };
  }
}

/** unpackF's answer, reused: FRows.toSection unpacks every pair of a section. */
const unpacked: [number, number, number, number, number] = [0, 0, 0, 0, 0];

/**
 * A packed f pair (row id * 16 + outcome) as its row id, identity (NO_IDENTITY for none), key, set and outcome,
 * in one array that the next call overwrites.
 */
function unpackF(packed: number): readonly [number, number, number, number, number] {
  const o = packed % 16;
  const rowId = (packed - o) / 16;
  const s = rowId % 2 ** 13;
  const rest = (rowId - s) / 2 ** 13;
  const k = rest % 2 ** 20;
  const first = (rest - k) / 2 ** 20;
  unpacked[0] = rowId;
  unpacked[1] = first === F_NONE ? NO_IDENTITY : first;
  unpacked[2] = k;
  unpacked[3] = s;
  unpacked[4] = o;
  return unpacked;
}

/** The sections of t, k, i, s and f of the tuples (version 0; a cube without rows has 0 rows). */
export function sectionsOfTuples(tuples: TupleSource): Map<Cube, Section> {
  const t = new RowTable('t');
  const k = new RowTable('k');
  const i = new RowTable('i');
  const s = new RowTable('s');
  const f = new FRows();
  tuples.forEach((_h, key, identity, set, o, n) => {
    t.add(0, 0, 0, 0, o, n);
    k.add(key, key, 0, 0, o, n);
    if (identity >= 0) i.add(identity, identity, 0, 0, o, n);
    s.add(set, set, 0, 0, o, n);
    f.add(key, identity, set, o, n);
  });
  return new Map<Cube, Section>([
    ['t', t.toSection()],
    ['k', k.toSection()],
    ['i', i.toSection()],
    ['s', s.toSection()],
    ['f', f.toSection()],
  ]);
}

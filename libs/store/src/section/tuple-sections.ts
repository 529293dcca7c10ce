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
 * The f cube's rows alone, tuple by tuple: what aggregate.ts writes as a part of an open hour, whose other
 * cubes stay hash increments (docs/store-v2.md "Open hours sealed").
 */
export class FRows {
  private readonly table = new RowTable('f');
  add(key: number, identity: number, set: number, o: number, n: number): void {
    this.table.add(fRowId(key, identity, set), identity >= 0 ? identity : NO_IDENTITY, key, set, o, n);
  }
  /** Distinct (identity, key, tag set) rows so far. */
  get rows(): number {
    return this.table.size;
  }
  toSection(): Section {
    return this.table.toSection();
  }
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

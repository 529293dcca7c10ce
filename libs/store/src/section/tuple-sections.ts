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

/** Rows of one cube, found by a numeric id (or a string one past the packed range), in insertion order. */
class RowTable {
  private readonly ids = new Map<number | string, number>();
  private readonly columns: number[][];
  private counts: number[] = [];

  constructor(private readonly cube: Cube) {
    this.columns = Array.from({ length: SECTION_DIMS[cube] }, () => []);
  }

  /** Adds n to outcome o of the row `id` with dimension codes d0, d1, d2 (as many as the cube has). */
  add(id: number | string, d0: number, d1: number, d2: number, o: number, n: number): void {
    let row = this.ids.get(id);
    if (row === undefined) {
      row = this.ids.size;
      this.ids.set(id, row);
      const dims = this.columns.length;
      if (dims > 0) this.columns[0]!.push(d0);
      if (dims > 1) this.columns[1]!.push(d1);
      if (dims > 2) this.columns[2]!.push(d2);
      for (let p = 0; p < OUTCOME_COUNT; p++) this.counts.push(0);
    }
    this.counts[row * OUTCOME_COUNT + o]! += n;
  }

  /** The rows sorted by their codes, as a section of version 0. */
  toSection(): Section {
    const rows = this.ids.size;
    const order = Array.from({ length: rows }, (_, r) => r);
    const columns = this.columns;
    order.sort((a, b) => {
      for (const column of columns) if (column[a] !== column[b]) return column[a]! - column[b]!;
      return 0;
    });
    const dims = columns.map((column) => Uint32Array.from(order, (r) => column[r]!));
    const counts = new Float64Array(rows * OUTCOME_COUNT);
    order.forEach((from, to) => {
      for (let o = 0; o < OUTCOME_COUNT; o++)
        counts[to * OUTCOME_COUNT + o] = this.counts[from * OUTCOME_COUNT + o]!;
    });
    return { cube: this.cube, version: 0, rows, dims, counts };
  }
}

/** Packed f row ids while the codes fit (identity + 1 < 2^16, key < 2^20, set < 2^13: 49 bits). */
const fitsPacked = (k: number, i1: number, s: number): boolean => k < 2 ** 20 && i1 < 2 ** 16 && s < 2 ** 13;

export interface TupleSource {
  /** Calls fn for every counted tuple (i = -1: no identity); a tuple may come more than once. */
  forEach(fn: (h: number, k: number, i: number, s: number, o: number, n: number) => void): void;
}

/** The sections of t, k, i, s and f of the tuples (version 0; a cube without rows has 0 rows). */
export function sectionsOfTuples(tuples: TupleSource): Map<Cube, Section> {
  const t = new RowTable('t');
  const k = new RowTable('k');
  const i = new RowTable('i');
  const s = new RowTable('s');
  const f = new RowTable('f');
  tuples.forEach((_h, key, identity, set, o, n) => {
    t.add(0, 0, 0, 0, o, n);
    k.add(key, key, 0, 0, o, n);
    if (identity >= 0) i.add(identity, identity, 0, 0, o, n);
    s.add(set, set, 0, 0, o, n);
    const i1 = identity + 1;
    const id = fitsPacked(key, i1, set) ? (i1 * 2 ** 20 + key) * 2 ** 13 + set : `${i1}.${key}.${set}`;
    f.add(id, identity >= 0 ? identity : NO_IDENTITY, key, set, o, n);
  });
  return new Map<Cube, Section>([
    ['t', t.toSection()],
    ['k', k.toSection()],
    ['i', i.toSection()],
    ['s', s.toSection()],
    ['f', f.toSection()],
  ]);
}

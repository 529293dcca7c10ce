/**
 * Counts per packed tuple key (aggregate.ts: a non-negative integer below 2^53), for the one update per event
 * of TupleCounter. In a Map<number, number> a key above 2^31 is a heap number, allocated per new key, and
 * every lookup hashes it in a table of pointers. Here keys and counts sit in typed arrays, in the order they
 * were first added (as a Map iterates), and an open-addressing index of 32-bit entry numbers finds them: no
 * allocation per key, several times faster in a loop of the ingest's shape (docs/benchmarks-history.md,
 * "Tuple counts in typed arrays"). A table of a few keys is one small array of pairs instead (SMALL_KEYS).
 */
import { grown } from './typed-arrays';

const TWO_32 = 2 ** 32;
/**
 * Up to this many keys a table is one plain array of (key, count) pairs, searched linearly: a batch of the
 * long tail makes one table per API-hour, most holding one to three tuples, and three typed arrays (each an
 * object, its ArrayBuffer and its store) per hour were a large part of the worker's garbage (#41). Eight
 * compares cost about one hash probe. Past it the pairs move to the typed arrays below.
 */
const SMALL_KEYS = 8;
/** Capacity of the typed arrays when the pairs move there; a big hour grows by doubling. */
const INITIAL_CAPACITY = 16;

/** The typed arrays of a table still in pairs (never read nor written: `pairs` is checked first). */
const EMPTY = new Float64Array(0);
const NO_INDEX = new Int32Array(0);

export class PackedCounts {
  /** While at most SMALL_KEYS keys: key, count, key, count, ... in the order first added; then undefined. */
  private pairs: number[] | undefined = [];
  /** Keys and counts, entry by entry, in the order first added (once past SMALL_KEYS). */
  private keys = EMPTY;
  private counts = EMPTY;
  /** Open addressing, linear probing: entry number + 1 (0 = free), at most half full. */
  private index = NO_INDEX;
  private mask = 0;
  /** Distinct keys. */
  size = 0;

  /**
   * Adds n to key's count; returns the key's entry number (0, 1, ... in the order keys were first added: a new
   * key's is the size before the call).
   */
  add(key: number, n: number): number {
    const pairs = this.pairs;
    if (pairs !== undefined) {
      for (let p = 0; p < pairs.length; p += 2) {
        if (pairs[p] === key) {
          pairs[p + 1]! += n;
          return p / 2;
        }
      }
      if (this.size < SMALL_KEYS) {
        pairs.push(key, n);
        return this.size++;
      }
      this.toTable(pairs);
    }
    const slot = this.probe(key);
    const found = this.index[slot]!;
    if (found !== 0) {
      this.counts[found - 1]! += n;
      return found - 1;
    }
    if (this.size === this.keys.length) {
      this.grow();
      return this.add(key, n);
    }
    const entry = this.size++;
    this.keys[entry] = key;
    this.counts[entry] = n;
    this.index[slot] = entry + 1;
    return entry;
  }

  /** The key of entry number `entry` (below size). */
  keyAt(entry: number): number {
    return this.pairs !== undefined ? this.pairs[2 * entry]! : this.keys[entry]!;
  }

  /** The count of a key (0: never added). */
  countOf(key: number): number {
    const pairs = this.pairs;
    if (pairs !== undefined) {
      for (let p = 0; p < pairs.length; p += 2) if (pairs[p] === key) return pairs[p + 1]!;
      return 0;
    }
    const entry = this.index[this.probe(key)]!;
    return entry === 0 ? 0 : this.counts[entry - 1]!;
  }

  /** The index slot holding key's entry, or the free slot where it would go (table mode only). */
  private probe(key: number): number {
    let slot = this.slotOf(key);
    for (let entry = this.index[slot]!; entry !== 0; entry = this.index[slot]!) {
      if (this.keys[entry - 1] === key) return slot;
      slot = (slot + 1) & this.mask;
    }
    return slot;
  }

  /** Calls fn for every key with its count, in the order the keys were first added. */
  forEach(fn: (key: number, count: number) => void): void {
    const pairs = this.pairs;
    if (pairs !== undefined) {
      for (let p = 0; p < pairs.length; p += 2) fn(pairs[p]!, pairs[p + 1]!);
      return;
    }
    const { keys, counts, size } = this;
    for (let entry = 0; entry < size; entry++) fn(keys[entry]!, counts[entry]!);
  }

  /** A 32-bit mix of both halves of the key (the outcome sits in its lowest bits, the key code in its highest). */
  private slotOf(key: number): number {
    const low = key >>> 0;
    const high = (key - low) / TWO_32;
    const h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
    return (h ^ (h >>> 15)) & this.mask;
  }

  /** Moves the pairs into the typed arrays and their index. */
  private toTable(pairs: number[]): void {
    this.pairs = undefined;
    this.keys = new Float64Array(INITIAL_CAPACITY);
    this.counts = new Float64Array(INITIAL_CAPACITY);
    for (let entry = 0; entry < this.size; entry++) {
      this.keys[entry] = pairs[2 * entry]!;
      this.counts[entry] = pairs[2 * entry + 1]!;
    }
    this.reindex(INITIAL_CAPACITY);
  }

  private grow(): void {
    const capacity = this.keys.length * 2;
    this.keys = grown(this.keys, capacity);
    this.counts = grown(this.counts, capacity);
    this.reindex(capacity);
  }

  private reindex(capacity: number): void {
    this.index = new Int32Array(capacity * 2);
    this.mask = capacity * 2 - 1;
    for (let entry = 0; entry < this.size; entry++) {
      let slot = this.slotOf(this.keys[entry]!);
      while (this.index[slot] !== 0) slot = (slot + 1) & this.mask;
      this.index[slot] = entry + 1;
    }
  }
}

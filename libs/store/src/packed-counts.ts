/**
 * Counts per packed tuple key (aggregate.ts: a non-negative integer below 2^53), for the one update per event
 * of TupleCounter. In a Map<number, number> a key above 2^31 is a heap number, allocated per new key, and
 * every lookup hashes it in a table of pointers. Here keys and counts sit in typed arrays, in the order they
 * were first added (as a Map iterates), and an open-addressing index of 32-bit entry numbers finds them: no
 * allocation per key, several times faster in a loop of the ingest's shape (docs/benchmarks-history.md,
 * "Tuple counts in typed arrays").
 */
import { grown } from './typed-arrays';

const TWO_32 = 2 ** 32;
/**
 * Small on purpose: a batch of the long tail makes one of these per API-hour, most holding one to three
 * tuples. At 8, each typed array is at most 64 bytes and V8 keeps it on its heap; at 64, each was an
 * off-heap buffer (allocated, tracked, freed by the GC): a tenth of the worker's CPU on the tail
 * (docs/benchmarks-history.md "#41: the tail ingest's per-bucket costs"). A big hour grows by doubling.
 */
const INITIAL_CAPACITY = 8;

export class PackedCounts {
  /** Keys and counts, entry by entry, in the order first added. */
  private keys = new Float64Array(INITIAL_CAPACITY);
  private counts = new Float64Array(INITIAL_CAPACITY);
  /** Open addressing, linear probing: entry number + 1 (0 = free), at most half full. */
  private index = new Int32Array(INITIAL_CAPACITY * 2);
  private mask = INITIAL_CAPACITY * 2 - 1;
  /** Distinct keys. */
  size = 0;

  /** Adds n to key's count; true when the key is new. */
  add(key: number, n: number): boolean {
    let slot = this.slotOf(key);
    for (let entry = this.index[slot]!; entry !== 0; entry = this.index[slot]!) {
      if (this.keys[entry - 1] === key) {
        this.counts[entry - 1]! += n;
        return false;
      }
      slot = (slot + 1) & this.mask;
    }
    if (this.size === this.keys.length) {
      this.grow();
      return this.add(key, n);
    }
    const entry = this.size++;
    this.keys[entry] = key;
    this.counts[entry] = n;
    this.index[slot] = entry + 1;
    return true;
  }

  /** Calls fn for every key with its count, in the order the keys were first added. */
  forEach(fn: (key: number, count: number) => void): void {
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

  private grow(): void {
    const capacity = this.keys.length * 2;
    const keys = grown(this.keys, capacity);
    this.keys = keys;
    this.counts = grown(this.counts, capacity);
    this.index = new Int32Array(capacity * 2);
    this.mask = capacity * 2 - 1;
    for (let entry = 0; entry < this.size; entry++) {
      let slot = this.slotOf(keys[entry]!);
      while (this.index[slot] !== 0) slot = (slot + 1) & this.mask;
      this.index[slot] = entry + 1;
    }
  }
}

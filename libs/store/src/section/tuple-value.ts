/**
 * The tuple value of a small API-month (docs/store-v2.md "Small tenants (#41): the design"): its distinct
 * (hour of the month, key, identity, tag set, outcome) tuples with their counts. Every cube of every hour,
 * day and of the month itself is derived from it (`tuplesOfSpan` feeds tuple-sections.ts `sectionsOfTuples`,
 * the function that builds the section parts of history today), so the value replaces the month's buckets.
 * Pure.
 *
 * Encoding: the format byte (1), varint version, varint number of tuples, then per tuple, sorted by
 * (hour, key, identity, tag set, outcome): varint (hour of the month × 16 + outcome), varint key code,
 * varint identity code + 1 (0: no identity), varint tag-set code, varint count. A tail API-month of the
 * issue's data set holds ~6 bytes per event this way (libs/store/bench/tail-budget.ts).
 */
import { ByteReader, ByteWriter } from './varint';
import type { TupleSource } from './tuple-sections';

const FORMAT = 1;
const OUTCOME_SLOTS = 16;

/** The tuples decoded into columns, sorted; `hours` are hours of the month (0 = its first hour). */
export interface TupleValue {
  version: number;
  size: number;
  hours: Uint16Array;
  outcomes: Uint8Array;
  keys: Uint32Array;
  /** -1: no identity. */
  identities: Int32Array;
  sets: Uint32Array;
  counts: Float64Array;
}

/** Compares tuple a of x with tuple b of y in the value's order. */
function compare(x: TupleValue, a: number, y: TupleValue, b: number): number {
  return (
    x.hours[a]! - y.hours[b]! ||
    x.keys[a]! - y.keys[b]! ||
    x.identities[a]! - y.identities[b]! ||
    x.sets[a]! - y.sets[b]! ||
    x.outcomes[a]! - y.outcomes[b]!
  );
}

function allocate(size: number, version: number): TupleValue {
  return {
    version,
    size,
    hours: new Uint16Array(size),
    outcomes: new Uint8Array(size),
    keys: new Uint32Array(size),
    identities: new Int32Array(size),
    sets: new Uint32Array(size),
    counts: new Float64Array(size),
  };
}

function copyTuple(from: TupleValue, a: number, to: TupleValue, b: number): void {
  to.hours[b] = from.hours[a]!;
  to.outcomes[b] = from.outcomes[a]!;
  to.keys[b] = from.keys[a]!;
  to.identities[b] = from.identities[a]!;
  to.sets[b] = from.sets[a]!;
  to.counts[b] = from.counts[a]!;
}

/** `value` with equal neighbours summed into one tuple (its tuples sorted). */
function collapsed(value: TupleValue): TupleValue {
  const out = allocate(value.size, value.version);
  let n = -1;
  for (let a = 0; a < value.size; a++) {
    if (n >= 0 && compare(value, a, out, n) === 0) out.counts[n]! += value.counts[a]!;
    else copyTuple(value, a, out, ++n);
  }
  return trimmed(out, n + 1);
}

function trimmed(value: TupleValue, size: number): TupleValue {
  if (size === value.size) return value;
  return {
    version: value.version,
    size,
    hours: value.hours.slice(0, size),
    outcomes: value.outcomes.slice(0, size),
    keys: value.keys.slice(0, size),
    identities: value.identities.slice(0, size),
    sets: value.sets.slice(0, size),
    counts: value.counts.slice(0, size),
  };
}

/** `value`'s tuples sorted and equal ones summed. */
function normalized(value: TupleValue): TupleValue {
  const order = Array.from({ length: value.size }, (_, n) => n).sort((a, b) => compare(value, a, value, b));
  const sorted = allocate(value.size, value.version);
  order.forEach((from, to) => copyTuple(value, from, sorted, to));
  return collapsed(sorted);
}

/** The tuple value of the counted tuples of one month whose first hour is `monthFirstHour`. */
export function tupleValueOf(tuples: TupleSource, monthFirstHour: number, version: number): TupleValue {
  const rows: number[][] = [];
  tuples.forEach((h, k, i, s, o, n) => {
    const hour = h - monthFirstHour;
    if (hour < 0 || hour >= 31 * 24) throw new Error(`tuple value: hour ${h} is not in the month`);
    rows.push([hour, o, k, i, s, n]);
  });
  const value = allocate(rows.length, version);
  rows.forEach(([hour, o, k, i, s, n], r) => {
    value.hours[r] = hour!;
    value.outcomes[r] = o!;
    value.keys[r] = k!;
    value.identities[r] = i!;
    value.sets[r] = s!;
    value.counts[r] = n!;
  });
  return normalized(value);
}

export function encodeTupleValue(value: TupleValue): Buffer {
  const out = new ByteWriter();
  out.varint(FORMAT);
  out.varint(value.version);
  out.varint(value.size);
  for (let n = 0; n < value.size; n++) {
    out.varint(value.hours[n]! * OUTCOME_SLOTS + value.outcomes[n]!);
    out.varint(value.keys[n]!);
    out.varint(value.identities[n]! + 1);
    out.varint(value.sets[n]!);
    out.varint(value.counts[n]!);
  }
  return Buffer.from(out.bytes());
}

export function decodeTupleValue(bytes: Uint8Array): TupleValue {
  const reader = new ByteReader(bytes);
  const format = reader.varint();
  if (format !== FORMAT) throw new Error(`tuple value: unknown format ${format}`);
  const version = reader.varint();
  const value = allocate(reader.varint(), version);
  for (let n = 0; n < value.size; n++) {
    const slot = reader.varint();
    value.hours[n] = Math.floor(slot / OUTCOME_SLOTS);
    value.outcomes[n] = slot % OUTCOME_SLOTS;
    value.keys[n] = reader.varint();
    value.identities[n] = reader.varint() - 1;
    value.sets[n] = reader.varint();
    value.counts[n] = reader.varint();
  }
  if (reader.offset !== bytes.length) throw new Error('tuple value: bytes after the last tuple');
  return value;
}

/** The values' tuples in one value of version `version` (a seal folding the month's parts into it). */
export function mergeTupleValues(values: readonly TupleValue[], version: number): TupleValue {
  const [first, second] = values;
  if (!first) return allocate(0, version);
  if (!second) return { ...first, version };
  // Pairwise merges of sorted runs: linear in the tuples per pair.
  let merged = first;
  for (const next of values.slice(1)) merged = mergeTwo(merged, next);
  return { ...merged, version };
}

function mergeTwo(x: TupleValue, y: TupleValue): TupleValue {
  const out = allocate(x.size + y.size, x.version);
  let a = 0;
  let b = 0;
  let n = 0;
  while (a < x.size || b < y.size) {
    const order = a >= x.size ? 1 : b >= y.size ? -1 : compare(x, a, y, b);
    if (order <= 0) copyTuple(x, a++, out, n++);
    else copyTuple(y, b++, out, n++);
  }
  return collapsed(out);
}

/** The tuples of hours [fromHour, toHour] (absolute hour indices) of the month starting at `monthFirstHour`. */
export function tuplesOfSpan(
  value: TupleValue,
  monthFirstHour: number,
  fromHour: number,
  toHour: number,
): TupleSource {
  return {
    forEach(fn) {
      const from = fromHour - monthFirstHour;
      const to = toHour - monthFirstHour;
      for (let n = 0; n < value.size; n++) {
        const hour = value.hours[n]!;
        if (hour < from) continue;
        if (hour > to) break; // sorted by hour first
        fn(
          hour + monthFirstHour,
          value.keys[n]!,
          value.identities[n]!,
          value.sets[n]!,
          value.outcomes[n]!,
          value.counts[n]!,
        );
      }
    },
  };
}

/**
 * The value with every hour moved to the first hour of its day ('day') or of the month ('month'): what
 * is kept once the hour (day) horizon has passed the month, so that the value shrinks to the detail the
 * retention keeps and a small API answers with the precision of a big one.
 */
export function coarsened(value: TupleValue, to: 'day' | 'month'): TupleValue {
  const out: TupleValue = { ...value, hours: value.hours.map((h) => (to === 'day' ? h - (h % 24) : 0)) };
  return normalized(out);
}

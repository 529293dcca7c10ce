/**
 * The minutes of one hour's events (TupleCounter.add with a minute), pure. The worker counts every live event in
 * its hour's tuple table; counting it in a second table per minute was most of what the minute buckets cost the
 * worker (#43's profile: a second hash insert per live event). An event's minute tuple is its hour tuple plus the
 * minute of the hour, so the log keeps one small integer per event instead — the hour table's entry number and
 * the minute, appended — and counts them per (minute, entry) once, when the batch is expanded: a counting sort
 * by minute, then a dense count per entry number (entries are 0..size-1), no hashing at all.
 */

/** Minutes in an hour; a log value is entry * MINUTE_RADIX + minute of the hour. */
const MINUTE_RADIX = 64;
/** Entry numbers below this keep a log value a small integer (< 2^30): the log stays an array of SMIs. */
export const MINUTE_LOG_MAX_ENTRIES = 2 ** 24;

/** A visitor of an hour's minute counts: minute of the hour (0-59), the hour table's entry number, events. */
export type MinuteCountVisitor = (minute: number, entry: number, n: number) => void;

export class MinuteLog {
  private readonly values: number[] = [];

  /** Logs one event of tuple `entry` (below MINUTE_LOG_MAX_ENTRIES) in minute `minute` (0-59) of the hour. */
  push(entry: number, minute: number): void {
    this.values.push(entry * MINUTE_RADIX + minute);
  }

  /**
   * The distinct (minute, entry) pairs with their events, minute by minute (ascending), each minute's entries in
   * the order first logged. `entries`: the hour table's size (every logged entry is below it).
   */
  counts(entries: number): MinuteCounts {
    const { values } = this;
    // Counting sort by minute (stable: each minute keeps its events in the order logged).
    const starts = new Int32Array(MINUTE_RADIX + 1);
    for (const v of values) starts[(v % MINUTE_RADIX) + 1]!++;
    for (let m = 0; m < MINUTE_RADIX; m++) starts[m + 1]! += starts[m]!;
    const next = starts.slice(0, MINUTE_RADIX);
    const byMinute = new Int32Array(values.length);
    for (const v of values) byMinute[next[v % MINUTE_RADIX]!++] = (v - (v % MINUTE_RADIX)) / MINUTE_RADIX;
    // Per minute, a dense count per entry; the entries touched, in order, are the minute's distinct tuples.
    const perEntry = new Int32Array(entries);
    const out = new MinuteCounts(values.length);
    for (let m = 0; m < MINUTE_RADIX; m++) {
      const first = out.size;
      for (let p = starts[m]!; p < starts[m + 1]!; p++) {
        const entry = byMinute[p]!;
        if (perEntry[entry] === 0) out.pushPair(m, entry);
        perEntry[entry]!++;
      }
      for (let q = first; q < out.size; q++) out.setEvents(q, perEntry[out.entryAt(q)]!);
      for (let q = first; q < out.size; q++) perEntry[out.entryAt(q)] = 0;
    }
    return out;
  }
}

/** An hour's minute counts (MinuteLog.counts): pairs (minute, entry, events), minute by minute. */
export class MinuteCounts {
  private readonly minutes: Uint8Array;
  private readonly entries: Int32Array;
  private readonly events: Int32Array;
  /** Distinct (minute, entry) pairs. */
  size = 0;

  constructor(capacity: number) {
    this.minutes = new Uint8Array(capacity);
    this.entries = new Int32Array(capacity);
    this.events = new Int32Array(capacity);
  }

  pushPair(minute: number, entry: number): void {
    this.minutes[this.size] = minute;
    this.entries[this.size++] = entry;
  }

  setEvents(pair: number, n: number): void {
    this.events[pair] = n;
  }

  entryAt(pair: number): number {
    return this.entries[pair]!;
  }

  forEach(fn: MinuteCountVisitor): void {
    for (let q = 0; q < this.size; q++) fn(this.minutes[q]!, this.entries[q]!, this.events[q]!);
  }
}

/**
 * Step 1 of aggregate.ts: a batch's events of one API counted per (hour, key, identity, tag set, outcome), one
 * update per event (pure). aggregate.ts `expand` turns the counts into cube increments.
 */
import type { EdgeFinder, EdgeResolution, ZoneEdge } from '@va/core';
import type { MinuteTuples } from './minute-increments';
import { MINUTE_LOG_MAX_ENTRIES, MinuteLog, type MinuteCounts } from './minute-log';
import { PackedCounts } from './packed-counts';

/*
 * Tuple keys: one number packing (key, identity + 1, tag set, outcome) when the codes fit
 * (key < 2^20, identity + 1 < 2^16, tag set < 2^13: 20 + 16 + 13 + 4 = 53 bits, exact in a double),
 * else a string. A packed number key is several times cheaper per event than nested maps or a
 * composite string, and PackedCounts keeps it in typed arrays (no allocation per event, not even per
 * new tuple).
 */
const K_LIMIT = 2 ** 20;
const I_RADIX = 2 ** 16;
const S_RADIX = 2 ** 13;

const pack = (k: number, i1: number, s: number, o: number): number =>
  ((k * I_RADIX + i1) * S_RADIX + s) * 16 + o;

/** Calls fn with the tuple of a packed key (i = -1: no identity). */
function unpack(h: number, key: number, n: number, fn: TupleVisitor): void {
  const o = key % 16;
  let rest = (key - o) / 16;
  const s = rest % S_RADIX;
  rest = (rest - s) / S_RADIX;
  const i1 = rest % I_RADIX;
  fn(h, (rest - i1) / I_RADIX, i1 - 1, s, o, n);
}

interface HourCounts {
  packed: PackedCounts;
  /** Events added to the hour. */
  events: number;
  /** Tuples whose codes do not fit the packed key: "k|i|s|o". */
  wide: Map<string, number> | undefined;
  /** The minutes of the hour's events counted with one (addWithMinute), by entry of `packed`. */
  minuteLog: MinuteLog | undefined;
}

/** A visitor of counted tuples (i = -1: no identity). */
export type TupleVisitor = (h: number, k: number, i: number, s: number, o: number, n: number) => void;

/** Step 1: events counted per (hour, key, identity, tag set, outcome). */
export class TupleCounter {
  private readonly hours = new Map<number, HourCounts>();
  /** Events added. */
  events = 0;
  /** Distinct tuples. */
  size = 0;
  /**
   * The events counted per minute by addMinute, and by addWithMinute when their tuple is not logged by entry (the
   * tuples' "hour" is then the minute index), or none. minuteTuples() gives every event's minute.
   */
  private minutes: TupleCounter | undefined;

  /**
   * The events also counted in billing zones' edges (addEdge), per edge resolution (z1d, z1m, ...; the tuples'
   * "hour" is then the edge's index, the minute of its local midnight), or none: an API without zones.
   */
  edges: Map<EdgeResolution, TupleCounter> | undefined;

  /**
   * The fewest billing zones any event added was counted in (countedInZones): the zones 1..n whose edges hold
   * every event of this counter. Undefined: no event was added.
   */
  zones: number | undefined;

  /** The finders of the API's zones (countedInZones; the longest list given: zones keep their number). */
  private finders: readonly EdgeFinder[] = [];

  /**
   * Notes that an event was counted in the edges of the API's zones (`finders`, zone n at n - 1; empty: an API
   * without zones): in the edges that cut its hour (addEdge, EdgeFinder.cut), while expand counts its hour's
   * tuples in the edges that hold the whole hour (wholeHourEdges). A number: the event's edges were all counted
   * with addEdge, none by hour.
   */
  countedInZones(zones: number | readonly EdgeFinder[]): void {
    const n = typeof zones === 'number' ? zones : zones.length;
    if (this.zones === undefined || n < this.zones) this.zones = n;
    if (typeof zones !== 'number' && zones.length > this.finders.length) this.finders = zones;
  }

  /** Whether expand counts hours in edges that hold them whole (wholeHourEdges): zones with finders. */
  countsWholeHours(): boolean {
    return Math.min(this.zones ?? 0, this.finders.length) > 0;
  }

  /**
   * The edges of zones 1..zones whose window holds the whole of hour h: expand adds the hour's tuples to them,
   * since every event of that hour is in them (libs/core zone-edges.ts holdsHour). Empty when events were
   * counted in edges one by one only (countedInZones with a number).
   */
  wholeHourEdges(h: number): ZoneEdge[] {
    const n = Math.min(this.zones ?? 0, this.finders.length);
    if (n === 0) return [];
    if (n === 1) return this.finders[0]!.wholeHour(h);
    const out: ZoneEdge[] = [];
    for (let z = 0; z < n; z++) out.push(...this.finders[z]!.wholeHour(h));
    return out;
  }

  /** Counts an event in edge bucket (res, index) too (libs/core zone-edges.ts EdgeFinder). */
  addEdge(res: EdgeResolution, index: number, k: number, i: number, s: number, o: number, count = 1): void {
    this.edges ??= new Map();
    let edge = this.edges.get(res);
    if (!edge) this.edges.set(res, (edge = new TupleCounter()));
    edge.add(index, k, i, s, o, count);
  }

  /** Counts an event of minute n in the minute buckets (only: `add` counts it in its hour). */
  addMinute(n: number, k: number, i: number, s: number, o: number, count = 1): void {
    (this.minutes ??= new TupleCounter()).add(n, k, i, s, o, count);
  }

  /** Counts one event in hour h and in minute `minute` (the minute index, inside hour h) of the minute buckets. */
  addWithMinute(h: number, minute: number, k: number, i: number, s: number, o: number): void {
    const hour = this.hourCounts(h);
    const entry = this.count(hour, k, i, s, o, 1);
    const m = minute - h * 60;
    if (entry >= 0 && entry < MINUTE_LOG_MAX_ENTRIES && m >= 0 && m < 60)
      (hour.minuteLog ??= new MinuteLog()).push(entry, m);
    else this.addMinute(minute, k, i, s, o);
  }

  add(h: number, k: number, i: number, s: number, o: number, n = 1): void {
    this.count(this.hourCounts(h), k, i, s, o, n);
  }

  private hourCounts(h: number): HourCounts {
    let hour = this.hours.get(h);
    if (!hour) {
      hour = { packed: new PackedCounts(), events: 0, wide: undefined, minuteLog: undefined };
      this.hours.set(h, hour);
    }
    return hour;
  }

  /** Adds n events of a tuple to an hour; returns its entry number in `packed`, or -1 for a wide tuple. */
  private count(hour: HourCounts, k: number, i: number, s: number, o: number, n: number): number {
    this.events += n;
    hour.events += n;
    if (k < K_LIMIT && i + 1 < I_RADIX && s < S_RADIX) {
      const before = hour.packed.size;
      const entry = hour.packed.add(pack(k, i + 1, s, o), n);
      this.size += hour.packed.size - before;
      return entry;
    }
    hour.wide ??= new Map();
    const key = `${k}|${i}|${s}|${o}`;
    const count = hour.wide.get(key);
    if (count === undefined) {
      hour.wide.set(key, n);
      this.size++;
    } else hour.wide.set(key, count + n);
    return -1;
  }

  /** Every minute count (addMinute, addWithMinute), or undefined when no event was counted in a minute. */
  minuteTuples(): MinuteTuples | undefined {
    const logged: LoggedHour[] = [];
    for (const [h, { packed, minuteLog }] of this.hours)
      if (minuteLog) logged.push({ h, packed, counts: minuteLog.counts(packed.size) });
    return logged.length > 0 || this.minutes ? new CountedMinutes(logged, this.minutes) : undefined;
  }

  /** Each hour counted with its distinct tuples. */
  *hourSizes(): IterableIterator<[number, number]> {
    for (const [h, { packed, wide }] of this.hours) yield [h, packed.size + (wide?.size ?? 0)];
  }

  /** The events added to hour h. */
  eventsOf(h: number): number {
    return this.hours.get(h)?.events ?? 0;
  }

  /** Calls fn for every distinct tuple, hour by hour (i = -1: no identity). */
  forEach(fn: TupleVisitor): void {
    for (const h of this.hours.keys()) this.forEachOfHour(h, fn);
  }

  /** Calls fn for every distinct tuple of hour h. */
  forEachOfHour(h: number, fn: TupleVisitor): void {
    const hour = this.hours.get(h);
    if (!hour) return;
    hour.packed.forEach((key, n) => unpack(h, key, n, fn));
    if (hour.wide) {
      for (const [key, n] of hour.wide) {
        const [k, i, s, o] = key.split('|').map(Number) as [number, number, number, number];
        fn(h, k, i, s, o, n);
      }
    }
  }
}

/** An hour's logged minutes, counted (MinuteLog.counts), with the table their entry numbers refer to. */
interface LoggedHour {
  h: number;
  packed: PackedCounts;
  counts: MinuteCounts;
}

/** The minute counts of a TupleCounter: its hours' logged minutes, and the minutes counted apart (`rest`). */
class CountedMinutes implements MinuteTuples {
  /**
   * Minute index -> [distinct tuples, events]. addWithMinute logs a tuple's minute or counts it apart, never both;
   * addMinute is for minutes that no addWithMinute event falls in (tests, staged writes): a tuple counted both
   * ways would be two distinct tuples here (its events still summed).
   */
  private readonly sizes = new Map<number, [number, number]>();

  constructor(
    private readonly logged: readonly LoggedHour[],
    private readonly rest: TupleCounter | undefined,
  ) {
    for (const { h, counts } of logged) counts.forEach((m, _entry, n) => this.note(h * 60 + m, 1, n));
    if (rest) for (const [t, size] of rest.hourSizes()) this.note(t, size, rest.eventsOf(t));
  }

  private note(t: number, tuples: number, events: number): void {
    const size = this.sizes.get(t);
    if (size) {
      size[0] += tuples;
      size[1] += events;
    } else this.sizes.set(t, [tuples, events]);
  }

  *hourSizes(): IterableIterator<[number, number]> {
    for (const [t, [tuples]] of this.sizes) yield [t, tuples];
  }

  eventsOf(t: number): number {
    return this.sizes.get(t)?.[1] ?? 0;
  }

  forEach(fn: TupleVisitor): void {
    for (const { h, packed, counts } of this.logged)
      counts.forEach((m, entry, n) => unpack(h * 60 + m, packed.keyAt(entry), n, fn));
    this.rest?.forEach(fn);
  }
}

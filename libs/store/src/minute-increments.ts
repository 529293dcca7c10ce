/**
 * The minute buckets of a batch (groupBy=minute; docs/design.md "The next store changes"), pure: the counts per
 * (minute, key, identity, tag set, outcome) that the worker kept for the events within the minute retention
 * (TupleCounter.addWithMinute and minuteTuples, minute-log.ts), as the writes of each minute's cubes t and f.
 *
 * Two cubes, not the hours' five: every live event is written to its minute too; f has every dimension, so
 * any filter or group reads it (libs/core chooseCube), t answers the unfiltered minute. A minute bucket is one
 * hash per cube (keys.ts `n:<t>:<c>`), never sharded: a minute holds a few tuples, and a Redis key costs about
 * ten times a small hash's field. So the f hash carries the identity in its fields (field-codec.ts
 * minuteFField). Minutes are never sealed or compacted: applyApiBatch gives each key its expiry, minute end +
 * minute retention, and writes no index, dirty or parts entry for them.
 *
 * f as one packed field. Within a minute of one batch the tuples hardly repeat (the medium tenant's live
 * traffic: ~0.9 f fields per event), so f fields as HINCRBYs cost Redis one command per live event, as much
 * as all of the hour's cubes together. A minute whose f has at least `partsMinRows` fields, fewer than two
 * events each on average, is written as one field instead (field-codec.ts MinuteFieldsPacker: one HSET).
 * Tuples that repeat within a batch repeat across batches too: those stay HINCRBYs, which merge them. A packed
 * pair counts at least one event, so a minute's hash never holds more pairs than the minute has events.
 */
import { expiresAt } from '@va/core';
import { PARTS_MIN_ROWS, type WriteContext } from './bucket-increments';
import { keySetField, MinuteFieldsPacker, minuteFField, totalField } from './field-codec';
import { code36, NO_IDENTITY_PART } from './keys';

/** Counted tuples (aggregate.ts TupleCounter), t = the minute index; i = -1: no identity. */
export interface MinuteTuples {
  forEach(fn: (t: number, k: number, i: number, s: number, o: number, n: number) => void): void;
  /** Each minute with its distinct tuples. */
  hourSizes(): Iterable<[number, number]>;
  /** The events of minute t. */
  eventsOf(t: number): number;
}

/** A minute bucket's increments, as aggregate.ts BucketIncrements spells a bucket's. */
export interface MinuteIncrements {
  r: 'n';
  t: number;
  /** Unix ms: minute end + minute retention. */
  expireAt: number;
  /** cube ("t", "f") -> field -> increment */
  cubes: Map<string, Map<string, number>>;
  /** "f" -> its fields packed (MinuteFieldsPacker), when written so; else empty. */
  parts: Map<string, Buffer>;
}

/** The minute cubes, in the order a bucket's hashes are written. */
export const MINUTE_CUBES = ['t', 'f'] as const;

/**
 * The increments of every minute still kept at `now` (a minute whose expiry has passed is left out: its
 * keys would expire at once).
 */
export function minuteIncrements(
  tuples: MinuteTuples,
  { now, retention, partsMinRows = PARTS_MIN_ROWS }: Pick<WriteContext, 'now' | 'retention' | 'partsMinRows'>,
): MinuteIncrements[] {
  // Which minutes are packed is known before their fields are spelled: a packed one's go straight to bytes.
  const packed = new Set<number>();
  for (const [t, tuplesOfMinute] of tuples.hourSizes())
    if (tuplesOfMinute >= partsMinRows && tuples.eventsOf(t) < 2 * tuplesOfMinute) packed.add(t);
  const byMinute = new Map<number, MinuteCounts>();
  let minute: MinuteCounts | undefined;
  let current = NaN;
  tuples.forEach((t, k, i, s, o, n) => {
    if (t !== current) {
      current = t;
      minute = byMinute.get(t);
      const expireAt = expiresAt('n', t, retention);
      if (!minute && expireAt > now) {
        minute = {
          t,
          expireAt,
          totals: new Array<number>(16).fill(0),
          ...(packed.has(t) ? { packer: new MinuteFieldsPacker() } : { fields: new Map<string, number>() }),
        };
        byMinute.set(t, minute);
      }
    }
    if (!minute) return;
    minute.totals[o]! += n;
    const part = i >= 0 ? code36(i) : NO_IDENTITY_PART;
    if (minute.packer) minute.packer.add(part, code36(k), code36(s), o, n);
    else add(minute.fields!, minuteFField(part, keySetField(code36(k), code36(s), o)), n);
  });
  const out: MinuteIncrements[] = [];
  for (const { t, expireAt, totals, packer, fields } of byMinute.values()) {
    const bucket: MinuteIncrements = { r: 'n', t, expireAt, cubes: new Map(), parts: new Map() };
    const total = new Map<string, number>();
    totals.forEach((n, o) => {
      if (n > 0) total.set(totalField(o), n);
    });
    if (total.size > 0) bucket.cubes.set('t', total);
    if (packer) bucket.parts.set('f', packer.bytes());
    else if (fields!.size > 0) bucket.cubes.set('f', fields!);
    out.push(bucket);
  }
  return out;
}

/** One minute's counts while a batch is expanded: t per outcome; f packed, or as fields. */
interface MinuteCounts {
  t: number;
  expireAt: number;
  /** Per outcome code. */
  totals: number[];
  packer?: MinuteFieldsPacker;
  fields?: Map<string, number>;
}

function add(fields: Map<string, number>, field: string, n: number): void {
  fields.set(field, (fields.get(field) ?? 0) + n);
}

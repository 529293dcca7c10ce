/**
 * The minute buckets of a batch (groupBy=minute; docs/design.md "The next store changes"), pure: the counts per
 * (minute, key, identity, tag set, outcome) that the worker kept for the events within the minute retention
 * (aggregate.ts TupleCounter.addMinute), as the writes of each minute's cubes t and f.
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
 * events each on average, is written as one field instead (field-codec.ts packMinuteFields: one HSET).
 * Tuples that repeat within a batch repeat across batches too: those stay HINCRBYs, which merge them. A packed
 * pair counts at least one event, so a minute's hash never holds more pairs than the minute has events.
 */
import { expiresAt } from '@va/core';
import { PARTS_MIN_ROWS, type WriteContext } from './bucket-increments';
import { keySetField, minuteFField, packMinuteFields, totalField } from './field-codec';
import { code36, NO_IDENTITY_PART } from './keys';

/** Counted tuples (aggregate.ts TupleCounter), t = the minute index; i = -1: no identity. */
export interface MinuteTuples {
  forEach(fn: (t: number, k: number, i: number, s: number, o: number, n: number) => void): void;
}

/** A minute bucket's increments, as aggregate.ts BucketIncrements spells a bucket's. */
export interface MinuteIncrements {
  r: 'n';
  t: number;
  /** Unix ms: minute end + minute retention. */
  expireAt: number;
  /** cube ("t", "f") -> field -> increment */
  cubes: Map<string, Map<string, number>>;
  /** "f" -> its fields packed (packMinuteFields), when written so; else empty. */
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
  const byMinute = new Map<number, MinuteIncrements>();
  let minute: MinuteIncrements | undefined;
  let current = NaN;
  /** Events per minute. */
  const events = new Map<number, number>();
  const codes = new Map<number, string>();
  const code = (c: number): string => {
    let text = codes.get(c);
    if (text === undefined) codes.set(c, (text = code36(c)));
    return text;
  };
  tuples.forEach((t, k, i, s, o, n) => {
    if (t !== current) {
      current = t;
      minute = byMinute.get(t);
      const expireAt = expiresAt('n', t, retention);
      if (!minute && expireAt > now) {
        const cubes = new Map(MINUTE_CUBES.map((cube) => [cube, new Map<string, number>()]));
        minute = { r: 'n', t, expireAt, cubes, parts: new Map() };
        byMinute.set(t, minute);
      }
    }
    if (!minute) return;
    events.set(t, (events.get(t) ?? 0) + n);
    const key = code(k);
    const set = code(s);
    add(minute.cubes.get('t')!, totalField(o), n);
    const part = i >= 0 ? code(i) : NO_IDENTITY_PART;
    add(minute.cubes.get('f')!, minuteFField(part, keySetField(key, set, o)), n);
  });
  const out = [...byMinute.values()];
  for (const bucket of out) {
    const f = bucket.cubes.get('f')!;
    if (f.size >= partsMinRows && events.get(bucket.t)! < 2 * f.size) {
      bucket.parts.set('f', Buffer.from(packMinuteFields(f), 'latin1'));
      bucket.cubes.delete('f');
    }
    for (const [cube, fields] of bucket.cubes) if (fields.size === 0) bucket.cubes.delete(cube);
  }
  return out;
}

function add(fields: Map<string, number>, field: string, n: number): void {
  fields.set(field, (fields.get(field) ?? 0) + n);
}

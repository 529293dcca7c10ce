/**
 * The edge buckets of a batch (billing zones, libs/core zone-edges.ts) counted event by event, pure: the
 * counts the worker kept per (edge resolution, edge index, key, identity, tag set, outcome)
 * (TupleCounter.addEdge: the events of an hour the edge cuts; the hours it holds whole are written by
 * expand from the hour's tuples, hour-targets.ts), as the five cubes
 * (t, k, i, s, f) of each edge bucket, like a day's: hash increments, or section parts once the bucket's
 * UTC day ended more than an hour ago and a cube has at least `partsMinRows` rows (aggregate.ts
 * closedForParts); before that, like an open hour's, its f as parts per identity shard once it has that
 * many rows (open-f-parts.ts). An edge past its own retention (end of its UTC day + the day or month
 * retention) is not written: its keys would expire at once.
 */
import { expiresAt, hourOf, lastHourOf, type EdgeResolution } from '@va/core';
import type { BucketIncrements, WriteContext } from './bucket-increments';
import { partsListSuffix } from './keys';
import { SHARD_PARTS_MIN_ROWS, writeShardParts } from './open-f-parts';
import { encodeSection } from './section/codec';
import { forEachDeltaField } from './section/delta-rows';
import { sectionsOfTuples } from './section/tuple-sections';
import type { TupleCounter } from './tuple-counter';

export interface EdgeIncrements {
  buckets: BucketIncrements[];
  /** The latest expiry of the buckets written (0: none): the API's keys are kept that long at least. */
  keepUntil: number;
  /** Per dictionary, highest code used + 1 (as ApiIncrements.required). */
  required: { k: number; i: number; s: number };
}

/** `minRows`: aggregate.ts's (context.partsMinRows or its default); aggregate.ts expand calls this. */
export function edgeIncrements(
  edges: ReadonlyMap<EdgeResolution, TupleCounter>,
  context: WriteContext,
  minRows: number,
): EdgeIncrements {
  const out: EdgeIncrements = { buckets: [], keepUntil: 0, required: { k: 0, i: 0, s: 0 } };
  for (const [res, counter] of edges) {
    for (const [index] of counter.hourSizes()) {
      const expireAt = expiresAt(res, index, context.retention);
      if (expireAt <= context.now) continue;
      const bucket: BucketIncrements = { r: res, t: index, expireAt, cubes: new Map(), parts: new Map() };
      // aggregate.ts closedForParts: its UTC day ended more than an hour ago.
      const asParts = lastHourOf(res, index) < hourOf(context.now) - 1;
      const tuples = {
        forEach: (fn: (h: number, k: number, i: number, s: number, o: number, n: number) => void) =>
          counter.forEachOfHour(index, (h, k, i, s, o, n) => {
            if (k >= out.required.k) out.required.k = k + 1;
            if (i >= out.required.i) out.required.i = i + 1;
            if (s >= out.required.s) out.required.s = s + 1;
            fn(h, k, i, s, o, n);
          }),
      };
      const field = (suffix: string, field: string, n: number) => add(bucket.cubes, suffix, field, n);
      for (const [cube, section] of sectionsOfTuples(tuples)) {
        if (section.rows === 0 || section.rows < minRows) forEachDeltaField(section, field);
        else if (asParts) bucket.parts.set(partsListSuffix(cube), encodeSection(section));
        else if (cube === 'f')
          writeShardParts(
            section,
            Math.min(minRows, SHARD_PARTS_MIN_ROWS),
            (l, b) => bucket.parts.set(l, b),
            field,
          );
        else forEachDeltaField(section, field);
      }
      if (bucket.cubes.size === 0 && bucket.parts.size === 0) continue;
      out.buckets.push(bucket);
      out.keepUntil = Math.max(out.keepUntil, expireAt);
    }
  }
  return out;
}

function add(cubes: Map<string, Map<string, number>>, suffix: string, field: string, n: number): void {
  let fields = cubes.get(suffix);
  if (!fields) cubes.set(suffix, (fields = new Map()));
  fields.set(field, (fields.get(field) ?? 0) + n);
}

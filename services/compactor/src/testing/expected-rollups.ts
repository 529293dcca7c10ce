/**
 * Test oracle of the stored counters (pure): what every hour, day and month bucket of an API
 * must hold, computed straight from the produced events, in the shape cube-dump decodes
 * (libs/store dumpApiCounts). A rollup holds the events of the hours `inRollups` says.
 */
import { outcomeCode, type VerificationEvent } from '@va/contracts';
import { dayOfHour, hourOf, monthOfHour } from '@va/core';
import { identityValue, tagSetValue } from '@va/store';
import { type DecodedCounts, fullKey, emptyDecodedCounts } from '@va/store/testing';

export type BucketCounts = Map<number, DecodedCounts>;

function add(map: Map<string, number[]>, key: string, o: number): void {
  let counts = map.get(key);
  if (!counts) {
    counts = new Array<number>(9).fill(0);
    map.set(key, counts);
  }
  counts[o]! += 1;
}

function count(into: DecodedCounts, e: VerificationEvent): void {
  const o = outcomeCode(e.outcome);
  const identity = e.identity ? identityValue(e.identity.id, e.identity.externalId) : '';
  const tags = tagSetValue(e.tags, e.region);
  into.total[o]! += 1;
  add(into.byKey, e.keyId, o);
  if (e.identity) add(into.byIdentity, identity, o);
  add(into.byTagSet, tags, o);
  add(into.full, fullKey(e.keyId, tags, identity), o);
}

/** Counts per bucket of resolution r of the events whose hour passes `holds`. */
export function expectedBuckets(
  events: readonly VerificationEvent[],
  r: 'h' | 'd' | 'm',
  holds: (hour: number) => boolean,
): BucketCounts {
  const out: BucketCounts = new Map();
  for (const e of events) {
    const h = hourOf(e.time);
    if (!holds(h)) continue;
    const t = r === 'h' ? h : r === 'd' ? dayOfHour(h) : monthOfHour(h);
    let bucket = out.get(t);
    if (!bucket) {
      bucket = emptyDecodedCounts();
      out.set(t, bucket);
    }
    count(bucket, e);
  }
  return out;
}

/** A stable, comparable form of decoded counts (maps sorted by key). */
export function comparable(c: DecodedCounts | undefined) {
  if (!c) return undefined;
  const sorted = (m: Map<string, number[]>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    total: c.total,
    byKey: sorted(c.byKey),
    byIdentity: sorted(c.byIdentity),
    byTagSet: sorted(c.byTagSet),
    full: sorted(c.full),
  };
}

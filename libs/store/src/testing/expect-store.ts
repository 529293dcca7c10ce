/**
 * Integration-test helper: compares every cube of every API in a generation with the counts
 * computed straight from the events (counts.ts), at the two resolutions that together hold every
 * event: hour buckets hold the events inside the hour retention and those of hours not compacted
 * yet; month rollups hold the compacted hours (<= cmp of the API).
 */
import type { VerificationEvent } from '@va/contracts';
import { hourOf } from '@va/core';
import { readCompactedThrough } from '../compaction';
import type { RedisClient } from '../connection';
import type { KeySpace } from '../keys';
import { dumpApiCounts, emptyDecodedCounts } from './cube-dump';
import { diffCounts, expectedCounts } from './counts';

const DAY = 86_400_000;

/** Events this close to the hour horizon may land on either side of it: tests keep clear of it. */
export const HORIZON_BAND_MS = 2 * DAY;

export async function storeDiff(
  redis: RedisClient,
  space: KeySpace,
  events: readonly VerificationEvent[],
  options: { now: number; hourRetentionMs: number },
): Promise<string[]> {
  const horizon = hourOf(options.now - options.hourRetentionMs);
  const apis = [...new Set(events.map((e) => e.apiId))].sort();
  const problems: string[] = [];
  for (const apiId of apis) {
    const cmp = (await readCompactedThrough(redis, space, apiId)) ?? -1;
    const mine = events.filter((e) => e.apiId === apiId);
    const hours =
      expectedCounts(mine, (e) => hourOf(e.time) >= horizon || hourOf(e.time) > cmp).get(apiId) ??
      emptyDecodedCounts();
    const months = expectedCounts(mine, (e) => hourOf(e.time) <= cmp).get(apiId) ?? emptyDecodedCounts();
    problems.push(
      ...diffCounts(`${apiId} hours`, hours, (await dumpApiCounts(redis, space, apiId, 'h')).sum, 5),
    );
    problems.push(
      ...diffCounts(`${apiId} months`, months, (await dumpApiCounts(redis, space, apiId, 'm')).sum, 5),
    );
    if (problems.length > 20) break;
  }
  return problems;
}

/** Keeps event times out of the band around the hour horizon (moved 3 days older). */
export function clearOfHorizon(
  e: VerificationEvent,
  now: number,
  hourRetentionMs: number,
): VerificationEvent {
  const horizon = now - hourRetentionMs;
  return Math.abs(e.time - horizon) < HORIZON_BAND_MS ? { ...e, time: e.time - 2 * HORIZON_BAND_MS } : e;
}

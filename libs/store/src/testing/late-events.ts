import { dayOfHour, type Retention } from '@va/core';
import { expect } from 'vitest';
import { drainStaged } from '../apply';
import type { RedisClient } from '../connection';
import { apiKeys, type KeySpace } from '../keys';
import { sealApi } from '../seal';
import type { SectionCache } from '../section-cache';
import { writeStagedEvent, type EdgeOf } from './ingest-events';

interface StagedLateEvent {
  redis: RedisClient;
  space: KeySpace;
  apiId: string;
  /** A compacted hour (at most `cmp`). */
  hour: number;
  /** The billing zones' edges the event is in (their buckets are staged like its hour's). */
  edges?: readonly EdgeOf[];
  cmp: number;
  now: number;
  retention: Retention;
  /** The answer read through `cache`, or without a cache (a fresh read). */
  cells: (cache?: SectionCache) => Promise<string[]>;
  cache: SectionCache;
}

/**
 * One late event into a compacted hour, as applyApiBatch writes it with a bound of one write per call (the day and
 * month in the call, the hour bucket staged), the day and month sealed before the hour's chunk is applied: a read
 * through the cache (which may hold records of the hour) answers what a fresh read does at every step.
 */
export async function expectStagedLateEventCounted(t: StagedLateEvent): Promise<void> {
  const { redis, space, apiId, hour, cmp, now, retention, cells, cache } = t;
  const before = await cells();
  await writeStagedEvent(
    redis,
    space,
    apiId,
    { hour, ...(t.edges && { edges: t.edges }) },
    { now, retention },
  );
  // The day sealed before the hour's chunk is applied: its new version has no delta to show.
  await sealApi(redis, space, apiId, cmp, { now, retention, only: 'd' });
  expect(await redis.exists(apiKeys(space, apiId).parts('d', dayOfHour(hour)))).toBe(0);
  await sealApi(redis, space, apiId, cmp, { now, retention, only: 'm' });
  expect(await cells(cache)).toEqual(await cells()); // the day has the event, its hour not yet
  await drainStaged(redis, space, [apiId]);
  const later = await cells();
  expect(later).not.toEqual(before);
  expect(await cells(cache)).toEqual(later);
  expect(await cells(cache)).toEqual(later);
}

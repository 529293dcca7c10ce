/**
 * #40 "Heavy requests": a query whose estimated work is over QUERY_MAX_COST is refused before its
 * counters are read (422 query_too_expensive, the detail naming what to narrow), on the main thread
 * and before a read worker would take it; narrower queries of the same data are answered. The data
 * set is small and sealed (the estimate counts sealed sections' rows); the bound is lowered to 1 ms
 * instead. The time from request to answer is printed, not asserted.
 */
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { HOUR_MS, hourOf } from '@va/core';
import { apiKeys, compactApi, sealBucket, type Resolution } from '@va/store';
import type { App } from '../http/app';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_cost';
const NOW = Date.UTC(2026, 10, 20, 12, 30);
const NOW_HOUR = hourOf(NOW);
const HEAVY = `apiId=${API}&groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=100000`;
const TAGS = ['plan:free', 'plan:pro', 'region:eu', 'region:us', 'sdk:go', 'sdk:js'];

let h: QueryHarness;
let key: string;
/** The same service with a read worker, on the harness's Redis and key prefix. */
let pooled: { app: App; redis: Redis; registry: Registry };

beforeAll(async () => {
  h = await queryHarness('query cost', { now: NOW, env: { QUERY_MAX_COST: '1' } });
  key = await h.rootKey();
  await h.registerApi(API);
  // 3,000 events over the 3 days before now: 30 keys, 25 identities, tag sets of 6 tags.
  const events: VerificationEvent[] = Array.from({ length: 3_000 }, (_, n) => ({
    requestId: `r${n}`,
    time: NOW - HOUR_MS - ((n * 7919) % (72 * HOUR_MS)),
    workspaceId: 'ws_1',
    apiId: API,
    keyId: `k${n % 30}`,
    outcome: n % 5 === 0 ? 'RATE_LIMITED' : 'VALID',
    ...(n % 4 !== 0 && { identity: { id: `id${n % 25}`, externalId: `user${n % 25}` } }),
    tags: TAGS.filter((_, t) => ((n * 31 + 7) >> t) % 2 === 1),
  }));
  await h.seed(events);
  // Compacted and sealed, as the compactor leaves closed buckets.
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const options = { now: NOW, retention: h.config.retention };
  await compactApi(h.redis, space, API, { closedBound: NOW_HOUR - 1, ...options });
  const keys = apiKeys(space, API);
  for (const res of ['h', 'd', 'm'] as Resolution[]) {
    for (const index of (await h.redis.zrange(keys.bucketIndex(res), 0, -1)).map(Number)) {
      if (res === 'h' && index >= NOW_HOUR) continue;
      await sealBucket(h.redis, space, API, res, index, options);
    }
  }
  const config = { ...h.config, queryWorkers: 1 };
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
  const registry = new Registry();
  const app = await createServer({ redis, config, registry, now: () => NOW });
  await app.ready();
  pooled = { app, redis, registry };
});

afterAll(async () => {
  await pooled?.app.close();
  pooled?.redis.disconnect();
  await h?.close();
});

const get = (app: App, query: string) =>
  app.inject({ method: 'GET', url: `${PATH}?${query}`, headers: { authorization: `Bearer ${key}` } });

const metric = (text: string, name: string): number =>
  Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/** Asks the heavy query; prints the time from request to answer. */
async function refusal(app: App, label: string): Promise<ErrorEnvelope['error']> {
  const started = performance.now();
  const response = await get(app, HEAVY);
  const ms = performance.now() - started;
  console.log(`#40 heavy query (${label}): ${response.statusCode} after ${ms.toFixed(1)} ms`);
  expect(response.statusCode, response.body.slice(0, 300)).toBe(422);
  return (response.json() as ErrorEnvelope).error;
}

describe('#40 heavy requests: refused before their counters are read when the estimate is over QUERY_MAX_COST', () => {
  it('answers 422 query_too_expensive naming what to narrow, without reading a section', async () => {
    const before = await h.metrics();
    const error = await refusal(h.app, 'main thread');
    expect(error.type).toMatch(/\/query_too_expensive$/);
    expect(error.title).toBe('Unprocessable Content');
    expect(error.detail).toMatch(/counter rows/);
    for (const narrow of [
      'shorter range (start, end)',
      'filter (keyId, externalId, tag, region)',
      'fewer groupBy dimensions (it groups by key and tags)',
      'coarser granularity (groupBy=day or month instead of hour)',
    ])
      expect(error.detail).toContain(narrow);
    const after = await h.metrics();
    expect(metric(after, 'va_query_refused_total{reason="too_expensive"}')).toBe(1);
    // Nothing was read: no section came from Redis, none from the cache.
    for (const name of ['va_query_section_cache_misses_total', 'va_query_section_cache_hits_total'])
      expect(metric(after, name)).toBe(metric(before, name));
  });

  it('refuses on the main thread before a read worker would take the query', async () => {
    const error = await refusal(pooled.app, 'with a read worker');
    expect(error.type).toMatch(/\/query_too_expensive$/);
    const text = await pooled.registry.metrics();
    expect(metric(text, 'va_query_refused_total{reason="too_expensive"}')).toBe(1);
  });

  it('answers the narrower queries of the same data', async () => {
    for (const query of [
      `groupBy=day&start=0`,
      `groupBy=key&start=0`,
      `groupBy=tags&groupBy=hour&start=${NOW - 24 * HOUR_MS}&externalId=user3`,
      `groupBy=key&groupBy=tags&keyId=k1&start=${NOW - 24 * HOUR_MS}`,
    ]) {
      const response = await get(h.app, `apiId=${API}&${query}`);
      expect([query, response.statusCode, response.body.slice(0, 300)]).toEqual([
        query,
        200,
        expect.stringMatching(/^\[\{/),
      ]);
    }
  });
});

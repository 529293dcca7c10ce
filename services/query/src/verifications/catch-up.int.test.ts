// Queries during a compaction catch-up (after a replay, a rebuild or a stopped compactor): the
// compaction point moves every millisecond or so, faster than a plan and its reads, and a reader
// whose reads overlap the hour being compacted must plan again each time it moves. The reader
// holds compaction after two such misses (libs/store holdCompaction), for twice what its last
// attempt took, and plans against the point the hold returns: every answer arrives, and equals the
// oracle, while the catch-up runs to its end, however far the reader is from Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS, hourOf, oracle, parseQuery } from '@va/core';
import { Redis } from 'ioredis';
import { compactApi, readCompactedThrough } from '@va/store';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { hourlyEvents } from './fixtures/hourly-events';
import { scaled } from '@va/testkit/time';
import { startRedisProxy } from '@va/testkit/support';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_catch_up';
const REMOTE_API = 'api_catch_up_remote';
const NOW = Date.now();
const HOURS = 60 * 24; // 60 days: the oldest 25 are past the hour retention (35 days)

let h: QueryHarness;
let key: string;
const events: VerificationEvent[] = [];

beforeAll(async () => {
  h = await queryHarness('catch-up', { now: NOW });
  key = await h.rootKey();
  await h.registerApi(API);
  await h.registerApi(REMOTE_API);
  events.push(...hourlyEvents(API, NOW, HOURS), ...hourlyEvents(REMOTE_API, NOW, HOURS, 40));
  await h.seed(events);
});
afterAll(async () => {
  await h.close();
});

/** The oracle's rows for a valid query string. */
function expectedRows(qs: string) {
  const parsed = parseQuery(new URLSearchParams(qs), { now: NOW, maxRows: 100_000 });
  if (!parsed.ok) throw new Error(qs);
  const expected = oracle(events, parsed.query, {
    now: NOW,
    maxRows: 100_000,
    retention: h.config.retention,
  });
  if (!expected.ok) throw new Error(qs);
  return expected.rows;
}

/** Starts the catch-up of the API's closed hours through `redis`; done() tells whether it has ended. */
function startCatchUp(redis: Redis, apiId: string) {
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const result = compactApi(redis, space, apiId, {
    closedBound: hourOf(NOW) - 2,
    retention: h.config.retention,
    now: NOW,
  });
  let ended = false;
  void result.finally(() => (ended = true));
  return { space, result, done: () => ended };
}

describe('queries while the compactor catches up', () => {
  it(
    'all answer, as the oracle, while the compaction point moves hour by hour',
    { timeout: scaled(120_000) },
    async () => {
      const catchUp = startCatchUp(h.redis, API);
      const queries = [
        'groupBy=day',
        'groupBy=month',
        '',
        `start=${NOW - 40 * DAY_MS}&groupBy=day`,
        `start=${NOW - 59 * DAY_MS}&end=${NOW - 20 * DAY_MS}`,
      ];
      let asked = 0;
      let duringCatchUp = 0;
      while (!catchUp.done() || asked < queries.length) {
        const qs = `apiId=${API}&${queries[asked % queries.length]}`;
        const expected = expectedRows(qs);
        const response = await h.get(`${PATH}?${qs}`, key);
        expect(response.statusCode, `${qs}: ${response.body.slice(0, 300)}`).toBe(200);
        expect(response.json(), qs).toEqual(expected);
        asked++;
        if (!catchUp.done()) duringCatchUp++;
      }
      expect((await catchUp.result).hoursCompacted).toBe(HOURS - 1);
      expect(await readCompactedThrough(h.redis, catchUp.space, API)).toBe(hourOf(NOW) - 2);
      // The catch-up took long enough to be queried in the middle of it.
      expect(duringCatchUp).toBeGreaterThan(queries.length);
    },
  );

  it(
    'all answer when Redis is far from the query service, so that one read outlasts a short hold',
    { timeout: scaled(120_000) },
    async () => {
      // The query service reads through a proxy that delays every reply by 300 ms (Redis far away):
      // every attempt's reads take longer than the shortest hold (250 ms), so that a fixed hold fails
      // the query (a 500 in every run before the hold grew with the attempt). The catch-up's replies
      // take 50 ms, so that it lasts a few queries although it compacts up to 32 hours per round trip
      // (40 events an hour: larger hours to compact).
      const proxy = await startRedisProxy(h.config.redisUrl, 300);
      const compactorProxy = await startRedisProxy(h.config.redisUrl, 50);
      const compactorRedis = new Redis(compactorProxy.url, { maxRetriesPerRequest: 2 });
      const redis = new Redis(proxy.url, { maxRetriesPerRequest: 2 });
      await redis.ping();
      const app = await createServer({ redis, config: h.config, now: () => NOW });
      const qs = `apiId=${REMOTE_API}&groupBy=key,day`; // all 60 days: every read meets the moving point
      const expected = expectedRows(qs);
      try {
        const ask = () => app.inject({ url: `${PATH}?${qs}`, headers: { authorization: `Bearer ${key}` } });
        await ask(); // the key and the dictionaries are cached, as in a running service
        const catchUp = startCatchUp(compactorRedis, REMOTE_API);
        let duringCatchUp = 0;
        while (!catchUp.done()) {
          const response = await ask();
          expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
          expect(response.json()).toEqual(expected);
          if (!catchUp.done()) duringCatchUp++;
        }
        expect((await catchUp.result).hoursCompacted).toBe(HOURS - 1);
        expect(duringCatchUp).toBeGreaterThan(0);
      } finally {
        await app.close();
        redis.disconnect();
        compactorRedis.disconnect();
        await proxy.close();
        await compactorProxy.close();
      }
    },
  );
});

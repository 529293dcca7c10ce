/**
 * Slots given back in the next pipeline (release-queue.ts), on a real Redis behind a delaying proxy: a
 * request's release goes out first in the next request's first round trip, so one query after another
 * from a root key with one slot never meets its own slot; without a next request it goes out on its own.
 */
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR_MS } from '@va/core';
import { loadConfig } from '@va/config';
import { startRedisProxy, waitFor, type RedisProxy } from '@va/testkit/support';
import type { App } from '../http/app';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';

const NOW = Date.now();
const DELAY_MS = 20;

let h: QueryHarness;
let proxy: RedisProxy;
let redis: Redis;
let app: App;
let key: string;

beforeAll(async () => {
  h = await queryHarness('release queue', { now: NOW });
  await h.seed([
    {
      requestId: 'r1',
      time: NOW - 3 * HOUR_MS,
      workspaceId: 'ws_1',
      apiId: 'api_1',
      keyId: 'k1',
      outcome: 'VALID',
    },
  ]);
  key = await h.rootKey();
  proxy = await startRedisProxy(h.config.redisUrl, DELAY_MS);
  redis = new Redis(proxy.url, { maxRetriesPerRequest: 2 });
  const config = loadConfig({
    REDIS_URL: proxy.url,
    REDIS_KEY_PREFIX: h.config.keyPrefix,
    QUERY_MAX_CONCURRENT: '1',
    QUERY_WORKERS: '0',
    QUERY_TIMEOUT_MS: '120000',
  });
  app = await createServer({ redis, config, registry: new Registry(), now: () => NOW });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await proxy?.close();
  await h?.close();
});

const ask = () =>
  app.inject({
    method: 'GET',
    url: `/v1/analytics.getVerifications?apiId=api_1&start=${NOW - 24 * HOUR_MS}`,
    headers: { authorization: `Bearer ${key}` },
  });

describe('query slots given back in the next pipeline', () => {
  it('one query after another with one slot: every one answered, each release before the next admission', async () => {
    expect((await ask()).statusCode).toBe(200); // the auth cache filled
    const from = proxy.sent.length;
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) statuses.push((await ask()).statusCode);
    expect(statuses).toEqual(Array(10).fill(200));
    const names = proxy.sent.slice(from).map((c) => c.args[0]!.toLowerCase());
    // Each admission (an EVALSHA of admitQuery, first of its pipeline) comes right after the ZREM of the
    // request before it: they went out in one write.
    const admissions = names.flatMap((name, i) => (name === 'evalsha' && names[i - 1] === 'zrem' ? [i] : []));
    expect(admissions.length).toBeGreaterThanOrEqual(10);
  });

  it('without a next request, the release goes out on its own', async () => {
    const response = await ask();
    expect(response.statusCode).toBe(200);
    const member = response.headers['x-request-id'] as string;
    await waitFor(
      () => proxy.sent.some((c) => c.args[0]!.toLowerCase() === 'zrem' && c.args.includes(member)),
      {
        timeoutMs: 5_000,
        message: 'the release sent',
      },
    );
    expect((await ask()).statusCode).toBe(200);
  });
});

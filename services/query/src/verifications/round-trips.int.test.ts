/**
 * #40 per-request fixed cost: a light query, once its root key and API are in the auth cache, waits
 * for Redis twice (docs/query-service.md "Round trips"): its admission with `<p>:gen` and the API's
 * meta, then its counters with `<p>:gen` again. Measured through a proxy that delays every reply, so
 * that each wait is a group of commands apart from the next; the slot's release (ZREM) goes out
 * without the answer waiting for it and is not counted.
 */
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { loadConfig } from '@va/config';
import { compactApi, sealApi } from '@va/store';
import type { App } from '../http/app';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { startRedisProxy, type RedisProxy, type SentCommand } from '@va/testkit/support';

const DELAY_MS = 40;
const NOW = Date.now();

let h: QueryHarness;
let proxy: RedisProxy;
let redis: Redis;
let app: App;
let key: string;
/** The same service with its pool of read workers, as npm start runs it (QUERY_WORKERS unset). */
let pooled: App | undefined;

beforeAll(async () => {
  h = await queryHarness('round trips', { now: NOW });
  const events: VerificationEvent[] = [];
  for (let n = 0; n < 200; n++) {
    events.push({
      requestId: `rt${n}`,
      time: NOW - (3 + (n % 60)) * HOUR_MS,
      workspaceId: 'ws_1',
      apiId: 'api_1',
      keyId: `key_${n % 5}`,
      outcome: n % 4 ? 'VALID' : 'RATE_LIMITED',
    });
  }
  await h.seed(events);
  // Sealed and compacted, as the compactor leaves closed hours: the read is one call.
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const closedBound = Math.floor(NOW / HOUR_MS) - 2;
  const options = { now: NOW, retention: h.config.retention };
  await sealApi(h.redis, space, 'api_1', closedBound, options);
  await compactApi(h.redis, space, 'api_1', { closedBound, ...options });
  await sealApi(h.redis, space, 'api_1', closedBound, options);
  key = await h.rootKey();

  proxy = await startRedisProxy(h.config.redisUrl, DELAY_MS);
  // The limits and the auth cache as npm start runs the service.
  const config = loadConfig({
    REDIS_URL: proxy.url,
    REDIS_KEY_PREFIX: h.config.keyPrefix,
    QUERY_RATE_LIMIT: '300',
    QUERY_MAX_CONCURRENT: '4',
    QUERY_AUTH_CACHE_MS: '1000',
    QUERY_WORKERS: '0',
    QUERY_TIMEOUT_MS: '120000',
  });
  redis = new Redis(proxy.url, { maxRetriesPerRequest: 2 });
  await redis.ping();
  app = await createServer({ redis, config, registry: new Registry(), now: () => NOW });
  await app.ready();
});

afterAll(async () => {
  await pooled?.close();
  await app?.close();
  redis?.disconnect();
  await proxy?.close();
  await h?.close();
});

/** Commands sent together: each group waited for the replies of the one before (DELAY_MS apart). */
function waits(sent: readonly SentCommand[]): string[][] {
  const groups: { at: number; names: string[] }[] = [];
  for (const command of sent) {
    const last = groups.at(-1);
    const name = command.args[0]!.toLowerCase();
    if (last && command.at - last.at < DELAY_MS / 2) last.names.push(name);
    else groups.push({ at: command.at, names: [name] });
  }
  return groups.map((g) => g.names);
}

describe('#40 per-request fixed cost', () => {
  it('a light query waits for Redis at most twice once its root key and API are cached', async () => {
    const path = `/v1/analytics.getVerifications?apiId=api_1&groupBy=day&start=${NOW - 30 * 24 * HOUR_MS}`;
    const ask = () => app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
    expect((await ask()).statusCode).toBe(200); // fills the auth cache and the dictionaries
    await new Promise((resolve) => setTimeout(resolve, 2 * DELAY_MS)); // its release
    const from = proxy.sent.length;
    const response = await ask();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<unknown[]>().length).toBeGreaterThan(0);
    const sent = proxy.sent.slice(from).filter((c) => c.args[0]!.toLowerCase() !== 'zrem');
    expect(waits(sent)).toHaveLength(2);
  });

  it('a query with a dictionary waits twice too: its tail rides with the admission', async () => {
    pooled = await createServer({
      redis,
      config: loadConfig({
        REDIS_URL: proxy.url,
        REDIS_KEY_PREFIX: h.config.keyPrefix,
        QUERY_AUTH_CACHE_MS: '1000',
        QUERY_WORKERS: '1',
        QUERY_TIMEOUT_MS: '120000',
      }),
      registry: new Registry(),
      now: () => NOW,
    });
    await pooled.ready();
    const path = `/v1/analytics.getVerifications?apiId=api_1&groupBy=key&start=${NOW - 30 * 24 * HOUR_MS}`;
    const ask = () =>
      pooled!.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
    expect((await ask()).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2 * DELAY_MS));
    const from = proxy.sent.length;
    const response = await ask();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<{ keyId: string }[]>().map((row) => row.keyId)).toHaveLength(5);
    const sent = proxy.sent.slice(from).filter((c) => c.args[0]!.toLowerCase() !== 'zrem');
    // The key dictionary's tail rides with the admission; the pool's heaviness check and the read need no other.
    const [first, ...rest] = waits(sent);
    expect(first).toContain('lrange');
    expect(rest.flat()).not.toContain('lrange');
    expect(rest).toHaveLength(1);
  });
});

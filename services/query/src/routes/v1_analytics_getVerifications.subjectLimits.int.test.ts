/**
 * #39 item 5: one end user must not starve the tenant. Each read-token subject (the externalId of a
 * root key's tokens) has a limit of its own inside its root key's (QUERY_SUBJECT_SHARE of the rate and
 * of the concurrency), so a flooding token leaves other tokens and the root key itself served, and the
 * root key's limit stays the outer bound. Real query services and Redis; a slow proxy holds slots.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { loadConfig } from '@va/config';
import { mintReadToken, type ReadTokenKey } from '@va/read-tokens';
import { hashRootKey } from '@va/store';
import type { App } from '../http/app';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { startRedisProxy, type RedisProxy } from '@va/testkit/support';

const PATH = '/v1/analytics.getVerifications';
const HOUR = 3_600_000;
const KEY: ReadTokenKey = { kid: 'k1', secret: 'subject-limits-secret-of-32-bytes!!' };
let h: QueryHarness;
let rootKey: string;
const opened: { app: App; redis: Redis }[] = [];
const proxies: RedisProxy[] = [];

beforeAll(async () => {
  h = await queryHarness('subject limits', { env: { READ_TOKEN_KEYS: `${KEY.kid}:${KEY.secret}` } });
  rootKey = await h.rootKey();
  await h.registerApi('api_main');
  const events: VerificationEvent[] = Array.from({ length: 100 }, (_, n) => ({
    requestId: `r${n}`,
    time: h.now - (n % 24) * HOUR - 1_000,
    workspaceId: 'ws_1',
    apiId: 'api_main',
    keyId: `k${n % 5}`,
    outcome: 'VALID',
    identity: { id: `id${n % 4}`, externalId: `user${n % 4}` },
  }));
  await h.seed(events);
});

afterAll(async () => {
  for (const { app, redis } of opened) {
    await app.close();
    redis.disconnect();
  }
  for (const proxy of proxies) await proxy.close();
  await h.close();
});

/** A query service on the harness's key prefix with its own connection (optionally through a proxy). */
async function service(env: Record<string, string>, redisUrl = h.config.redisUrl): Promise<App> {
  const config = loadConfig({
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: h.config.keyPrefix,
    READ_TOKEN_KEYS: `${KEY.kid}:${KEY.secret}`,
    QUERY_WORKERS: '0',
    QUERY_TIMEOUT_MS: '120000',
    ...env,
  });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  await redis.ping();
  const app = await createServer({ redis, config, now: () => h.now });
  await app.ready();
  opened.push({ app, redis });
  return app;
}

/** A read token of the root key for this end user. */
async function token(externalId: string): Promise<string> {
  const minted = await mintReadToken([KEY], {
    workspaceId: 'ws_1',
    apiId: 'api_main',
    externalId,
    rootKeyHash: hashRootKey(rootKey),
    now: h.now,
    ttlSeconds: 86_400,
  });
  return minted.token;
}

const get = (app: App, bearer: string, query = 'apiId=api_main&groupBy=day') =>
  app.inject({ method: 'GET', url: `${PATH}?${query}`, headers: { authorization: `Bearer ${bearer}` } });

describe('#39 item 5: a read-token subject has its own limits inside its root key', () => {
  it('rate: a flooding token leaves another token and the root key served; the root key stays the outer bound', async () => {
    // 10 per window for the root key; the default share gives each subject 5 of them.
    const app = await service({
      QUERY_RATE_LIMIT: '10',
      QUERY_RATE_WINDOW_MS: '60000',
      QUERY_MAX_CONCURRENT: '0',
    });
    const flooder = await token('user0');
    const flood: number[] = [];
    for (let n = 0; n < 20; n++) flood.push((await get(app, flooder)).statusCode);
    expect(flood.filter((s) => s === 200)).toHaveLength(5);
    expect(flood.slice(5).every((s) => s === 429)).toBe(true);
    // Refused by its own window, which the root key's does not count.
    const refused = await get(app, flooder);
    expect(refused.json<ErrorEnvelope>().error.detail).toMatch(/read tokens of this end user/);

    const other = await get(app, await token('user1'));
    expect(other.statusCode, other.body).toBe(200);
    const own = await get(app, rootKey);
    expect(own.statusCode, own.body).toBe(200);

    // The root key's window counts every subject's answered requests: 5 + 1 + 1 taken, 3 left for all.
    const statuses: number[] = [];
    for (const user of ['user2', 'user3']) {
      const bearer = await token(user);
      for (let n = 0; n < 5; n++) statuses.push((await get(app, bearer)).statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect((await get(app, rootKey)).statusCode).toBe(429);
  });

  it('concurrency: a token holding its share of slots leaves slots to another token and the root key', async () => {
    // Every Redis reply of the flooding service takes 1 s, so its admitted queries hold their slots for
    // seconds; the other principals ask through a service without delay, on the same Redis.
    const slow = await startRedisProxy(h.config.redisUrl, 1_000);
    proxies.push(slow);
    const env = { QUERY_RATE_LIMIT: '0', QUERY_MAX_CONCURRENT: '4', QUERY_TIMEOUT_MS: '60000' };
    const flooding = await service(env, slow.url);
    const fast = await service(env);
    const flooder = await token('user0');
    const settled: number[] = [];
    const flood = Array.from({ length: 8 }, () =>
      get(flooding, flooder).then((response) => {
        settled.push(response.statusCode);
        return response.statusCode;
      }),
    );
    // The slot replies all come back together; refusals are answered right after theirs.
    while (!settled.includes(429)) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const running = 8 - settled.length;
    expect(running).toBeGreaterThan(0); // the flooder still holds slots while the others ask

    const other = await get(fast, await token('user1'));
    expect(other.statusCode, other.body).toBe(200);
    const own = await get(fast, rootKey);
    expect(own.statusCode, own.body).toBe(200);
    expect(settled.length).toBe(8 - running); // the flood's slots were held throughout

    const statuses = await Promise.all(flood);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });
});

/**
 * Query isolation against the real service and Redis: the time budget (the error, and that
 * the read stops: no Redis command after it), the rate and concurrency limits shared by two
 * service instances on one Redis (429 + Retry-After in the envelope, after 401), the early
 * refusal of answers over the row cap (no counter read), streamed and compressed answers.
 */
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope, VerificationEvent } from '@va/contracts';
import { loadConfig } from '@va/config';
import { parseQuery } from '@va/core';
import { readGeneration } from '@va/store';
import type { App } from '../http/app';
import { jsonBytes, ROWS_PER_PIECE } from '../http/json-body';
import { admit, type LimitsDeps } from '../limits/admission';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { DictionaryCache } from '../verifications/dictionary-cache';
import { readAnswerJson } from '../verifications/read-answer';
import { ReleaseQueue } from '../limits/release-queue';
import { scaled } from '@va/testkit/time';
import { waitFor, startRedisProxy, type RedisProxy } from '@va/testkit/support';

const PATH = '/v1/analytics.getVerifications';
const HOUR = 3_600_000;
let h: QueryHarness;
let key: string;
const opened: { app: App; redis: Redis }[] = [];
/** Each service's metrics registry: the text its internal port would serve (main.ts). */
const registries = new WeakMap<App, Registry>();
const metricsOf = (app: App): Promise<string> => registries.get(app)!.metrics();
const proxies: RedisProxy[] = [];

beforeAll(async () => {
  h = await queryHarness('query isolation');
  key = await h.rootKey();
  await h.registerApi('api_main');
  // 400 events over the last 2 days: 20 keys, 5 identities, a few tag sets.
  const events: VerificationEvent[] = Array.from({ length: 400 }, (_, n) => ({
    requestId: `r${n}`,
    time: h.now - (n % 48) * HOUR - 1_000,
    workspaceId: 'ws_1',
    apiId: 'api_main',
    keyId: `k${n % 20}`,
    outcome: 'VALID',
    ...(n % 3 === 0 && { identity: { id: `id${n % 5}`, externalId: `user${n % 5}` } }),
    ...(n % 2 === 0 && { tags: [`t${n % 7}`, `u${n % 3}`] }),
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

/** Another query service on the harness's key prefix, with its own Redis connection (optionally through a proxy). */
async function service(env: Record<string, string>, redisUrl = h.config.redisUrl): Promise<App> {
  const config = loadConfig({
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: h.config.keyPrefix,
    QUERY_RATE_LIMIT: '0',
    QUERY_WORKERS: '0',
    QUERY_TIMEOUT_MS: '120000',
    ...env,
  });
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  await redis.ping(); // connected, as a running service is: no command waits in the offline queue
  const registry = new Registry();
  const app = await createServer({ redis, config, registry, now: () => h.now });
  await app.ready();
  registries.set(app, registry);
  opened.push({ app, redis });
  return app;
}

const get = (app: App, query: string, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'GET',
    url: `${PATH}?${query}`,
    headers: { authorization: `Bearer ${key}`, ...headers },
  });

async function proxied(delayMs: number): Promise<RedisProxy> {
  const proxy = await startRedisProxy(h.config.redisUrl, delayMs);
  proxies.push(proxy);
  return proxy;
}

/** Commands that read counters (readBuckets is EVALSHA/EVAL with the bucket keys as KEYS). */
const counterReads = (proxy: RedisProxy) =>
  proxy.sent.filter((c) => c.args.some((a) => /:[hdm]:\d+:/.test(a)));

const heavy = `apiId=api_main&groupBy=key&groupBy=tags&start=${0}`;

describe('the time budget', () => {
  it('answers 503 query_timeout in the envelope and stops reading', { timeout: scaled(60_000) }, async () => {
    // The whole query first, to count its commands (through a fast proxy: only the count matters).
    // Then every reply takes 300 ms: the query needs at least 4 round trips (root key, meta and
    // dictionaries, parts sets, counters), the budget of 400 ms lets at most 2 start (a wide
    // margin: the machine running the tests may stall a timer by a few hundred ms).
    const full = await proxied(5);
    const unbounded = await service({ QUERY_TIMEOUT_MS: '60000', QUERY_MAX_CONCURRENT: '0' }, full.url);
    const before = full.sent.length;
    const complete = await get(unbounded, heavy);
    expect(complete.statusCode, complete.body).toBe(200);
    const fullCommands = full.sent.length - before;
    expect(counterReads(full).length).toBeGreaterThan(0);

    const cut = await proxied(300);
    const bounded = await service({ QUERY_TIMEOUT_MS: '400', QUERY_MAX_CONCURRENT: '0' }, cut.url);
    const start = cut.sent.length;
    const response = await get(bounded, heavy);
    const answeredAt = Date.now();
    expect(response.statusCode).toBe(503);
    const body = response.json<ErrorEnvelope>();
    expect(body.error).toMatchObject({
      status: 503,
      type: `${h.config.docsUrl}/query_timeout`,
      errors: [],
    });
    expect(body.error.detail).toMatch(/time budget of 400 ms/);
    expect(body.meta.requestId).toBe(response.headers['x-request-id']);

    // Give abandoned work every chance to go on: it must not.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const made = cut.sent.slice(start);
    expect(made.filter((c) => c.at > answeredAt).map((c) => c.args.slice(0, 4))).toEqual([]);
    expect(made.length).toBeLessThan(fullCommands);
    expect(counterReads(cut)).toEqual([]);

    expect(await metricsOf(bounded)).toMatch(/va_query_refused_total\{reason="timeout"\} 1/);
  });
});

describe('a client that hangs up', () => {
  it('stops the work of its request: no Redis command after it, counted as client_closed', async () => {
    // Every reply takes 300 ms, so the heavy query is still reading its dictionaries when the
    // client leaves after 500 ms (its counters come after at least three round trips).
    const slow = await proxied(300);
    const app = await service({ QUERY_MAX_CONCURRENT: '0', QUERY_TIMEOUT_MS: '60000' }, slow.url);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const start = slow.sent.length;
    const client = new AbortController();
    const pending = fetch(`http://127.0.0.1:${port}${PATH}?${heavy}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: client.signal,
    }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 500));
    client.abort();
    const hungUpAt = Date.now();
    expect(await pending).toBeInstanceOf(Error);

    // Give abandoned work every chance to go on (the read in flight when the client left may
    // still be answered; nothing may be sent after it).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const made = slow.sent.slice(start);
    expect(made.length).toBeGreaterThan(0);
    expect(made.filter((c) => c.at > hungUpAt + 100).map((c) => c.args.slice(0, 4))).toEqual([]);
    expect(counterReads(slow)).toEqual([]);
    expect(await metricsOf(app)).toMatch(/va_query_refused_total\{reason="client_closed"\} 1/);
  });
});

describe('the rate limit per root key', () => {
  it('is shared by two services on one Redis: 429 with Retry-After in the envelope', async () => {
    const env = { QUERY_RATE_LIMIT: '3', QUERY_RATE_WINDOW_MS: '60000' };
    const a = await service(env);
    const b = await service(env);
    const query = 'apiId=api_main&groupBy=day';
    const statuses = [];
    for (const app of [a, b, a]) statuses.push((await get(app, query)).statusCode);
    expect(statuses).toEqual([200, 200, 200]);

    const limited = await get(b, query);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    const body = limited.json<ErrorEnvelope>();
    expect(body.error).toMatchObject({ status: 429, type: `${h.config.docsUrl}/too_many_requests` });
    expect(body.meta.requestId).toBe(limited.headers['x-request-id']);
    expect((await get(a, query)).statusCode).toBe(429);

    // 401 comes first: an unauthenticated request is never answered 429.
    const anonymous = await a.inject({ method: 'GET', url: `${PATH}?${query}` });
    expect(anonymous.statusCode).toBe(401);
    const unknown = await get(a, query, { authorization: 'Bearer vak_unknown' });
    expect(unknown.statusCode).toBe(401);
    // Another root key has its own window.
    const other = await h.rootKey();
    expect((await get(a, query, { authorization: `Bearer ${other}` })).statusCode).toBe(200);

    expect(await metricsOf(b)).toMatch(/va_query_refused_total\{reason="rate_limited"\} 1/);
  });
});

describe('the concurrency limit per root key', () => {
  it('is shared by two services on one Redis: 429 while the slots are taken', async () => {
    const slow = await proxied(30); // the heavy query holds the slot for ~90 round trips
    const env = { QUERY_MAX_CONCURRENT: '1', QUERY_TIMEOUT_MS: '30000' };
    const a = await service(env, slow.url);
    const b = await service(env);
    const running = get(a, heavy);
    // Wait until service a holds the slot (its admission command went out).
    while (!slow.sent.some((c) => c.args.some((arg) => arg.includes(':slots:')))) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const refused = await get(b, 'apiId=api_main');
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json<ErrorEnvelope>().error.type).toBe(`${h.config.docsUrl}/too_many_requests`);
    expect((await running).statusCode).toBe(200);
    // The slot is given back right after the answer, without the response waiting for it (here
    // through the slow proxy: ~30 ms later).
    await waitFor(async () => (await get(b, 'apiId=api_main')).statusCode === 200, {
      timeoutMs: 5_000,
      intervalMs: 20,
      message: 'the slot given back',
    });
  });

  it('lets slots of a crashed service expire', async () => {
    const deps: LimitsDeps = {
      redis: h.redis,
      prefix: h.config.keyPrefix,
      rateMax: 0,
      rateSubjectMax: 0,
      windowMs: 1_000,
      slotMax: 1,
      slotSubjectMax: 1,
      slotTtlMs: 2_000,
      releases: new ReleaseQueue(h.redis),
    };
    const owner = { rootKeyHash: 'crashed', subject: null };
    const slots = { slots: true };
    expect(await admit(deps, owner, 'r1', slots)).toHaveProperty('release'); // never released
    expect(await admit(deps, owner, 'r2', slots)).toEqual({ limit: 'slots', scope: 'rootKey' });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const slot = await admit(deps, owner, 'r3', slots);
    if (!('release' in slot)) throw new Error('no slot after the crashed one expired');
    await slot.release();
    expect(await admit(deps, owner, 'r4', slots)).toHaveProperty('release');
  });
});

describe('the row cap, decided before reading', () => {
  it('refuses time slices over the cap from the range alone: no counter, dictionary or meta read', async () => {
    const proxy = await proxied(0);
    for (const workers of ['0', '1']) {
      const app = await service({ MAX_ROWS: '1000', QUERY_WORKERS: workers }, proxy.url);
      for (const query of ['apiId=api_main&groupBy=hour&start=0', 'apiId=api_main&groupBy=day&start=0']) {
        const response = await get(app, query);
        expect(response.statusCode).toBe(400);
        expect(response.json<ErrorEnvelope>().error.errors[0]).toMatchObject({ location: 'query.limit' });
      }
    }
    expect(counterReads(proxy)).toEqual([]);
    // Only the checks before it (root key, API owner) touched the API's keys: no dictionary, no meta.
    expect(proxy.sent.filter((c) => c.args.some((a) => /:dict:|:cmp$|:idx:/.test(a)))).toEqual([]);
  });

  it('refuses over the rate limit before reading counters or dictionaries of the API', async () => {
    const proxy = await proxied(0);
    const app = await service({ QUERY_RATE_LIMIT: '1', QUERY_RATE_WINDOW_MS: '60000' }, proxy.url);
    const other = await h.rootKey();
    const query = 'apiId=api_main&groupBy=key&groupBy=hour&start=0';
    const auth = { authorization: `Bearer ${other}` };
    expect((await get(app, 'apiId=api_main', auth)).statusCode).toBe(200);
    const before = proxy.sent.length;
    expect((await get(app, query, auth)).statusCode).toBe(429);
    const sent = proxy.sent.slice(before);
    // The API's meta (compaction point, first buckets) rides in the admission's round trip
    // (verifications/start.ts); nothing else of the API is read.
    expect(sent.filter((c) => c.args.some((a) => /:dict:|:[hdm]:\d+:/.test(a)))).toEqual([]);
  });

  it('refuses groups x slices over the cap reading only the total counters', async () => {
    const proxy = await proxied(0);
    const app = await service({ MAX_ROWS: '1000' }, proxy.url);
    const response = await get(app, 'apiId=api_main&groupBy=key&groupBy=tags&groupBy=hour&start=0');
    expect(response.statusCode).toBe(400);
    expect(response.json<ErrorEnvelope>().error.errors[0]!.location).toBe('query.limit');
    const reads = counterReads(proxy).flatMap((c) => c.args.filter((a) => /:[hdm]:\d+:/.test(a)));
    expect(reads.length).toBeGreaterThan(0);
    // The t cube only: its section, sealing and delta hash, and the parts sets the read script checks.
    expect(reads.filter((k) => !/:(S:|z:)?t$|:z?parts$/.test(k))).toEqual([]);
    // Nothing to count: the same query over a range without data is [] (no groups).
    const empty = await get(app, `apiId=api_main&groupBy=key&groupBy=hour&start=0&end=${HOUR * 2000}`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual([]);
    expect(await metricsOf(app)).toMatch(/va_query_refused_total\{reason="row_cap"\} 1/);
  });

  it('reads only the slices a time-ordered limit shows, with every group of the range', async () => {
    const app = await service({});
    const response = await get(app, 'apiId=api_main&groupBy=key&groupBy=hour&start=0&limit=45');
    expect(response.statusCode).toBe(200);
    const rows = response.json<{ time: number; keyId: string; total: number }[]>();
    // 20 keys: the first 3 hours since 1970, all zeros, keys in order.
    expect(rows).toHaveLength(45);
    expect(rows.map((r) => r.time)).toEqual(
      [0, HOUR, HOUR * 2].flatMap((t) => Array(20).fill(t)).slice(0, 45),
    );
    expect(rows.slice(0, 20).map((r) => r.keyId)).toEqual(
      Array.from({ length: 20 }, (_, n) => `k${n}`).sort(),
    );
    expect(rows.every((r) => r.total === 0)).toBe(true);
    // Descending: the last slice (the current hour), keys descending.
    const desc = await get(app, 'apiId=api_main&groupBy=key&groupBy=hour&start=0&limit=20&order=desc');
    const last = desc.json<{ time: number; keyId: string }[]>();
    expect(last.map((r) => r.time)).toEqual(Array(20).fill(Math.floor(h.now / HOUR) * HOUR));
    expect(last.map((r) => r.keyId)).toEqual(
      Array.from({ length: 20 }, (_, n) => `k${n}`)
        .sort()
        .reverse(),
    );
  });
});

describe('streamed answers', () => {
  // The rows the main thread reads (readAnswerJson, what the route calls), written whole: the
  // pieces, sent by either thread and compressed or not, must join to the same bytes. That they
  // are JSON.stringify of buildRows' rows is libs/core buildRowsJson.test.ts's.
  it('sends a big answer in pieces, byte for byte the JSON of the answer written whole', async () => {
    const inline = await service({});
    const pooled = await service({ QUERY_WORKERS: '1' });
    const deps = {
      redis: h.redis,
      config: h.config,
      now: () => h.now,
      dictionaries: new DictionaryCache(h.redis),
    };
    const prefix = h.config.keyPrefix;
    const space = { prefix, generation: await readGeneration(h.redis, prefix) };
    for (const query of [
      `apiId=api_main&groupBy=key&groupBy=hour&start=${h.now - 99 * HOUR}`,
      `apiId=api_main&groupBy=key&groupBy=tags&groupBy=hour&start=${h.now - 60 * HOUR}&orderBy=total&order=desc`,
      'apiId=api_main&groupBy=identity&groupBy=hour&start=0&limit=3000', // a worker's (no start in 400 days)
    ]) {
      const parsed = parseQuery(new URLSearchParams(query), { now: h.now, maxRows: h.config.maxRows });
      if (!parsed.ok) throw new Error(query);
      const want = (await readAnswerJson(deps, space, parsed.query, h.now)).rows;
      expect(want.length, query).toBeGreaterThan(ROWS_PER_PIECE);
      for (const app of [inline, pooled]) {
        const plain = await get(app, query);
        expect(plain.statusCode, query).toBe(200);
        expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(plain.headers['content-length'], query).toBeUndefined(); // a stream: no length up front
        expect(plain.body, query).toBe(jsonBytes(want).toString());
        // Compressed by the plugin on the main thread, or by the worker itself.
        const gzip = await get(app, query, { 'accept-encoding': 'gzip' });
        expect(gzip.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gzip.rawPayload).toString(), query).toBe(plain.body);
        const br = await get(app, query, { 'accept-encoding': 'gzip;q=0.5, br' });
        expect(br.headers['content-encoding']).toBe('br');
        expect(br.headers.vary).toMatch(/accept-encoding/i);
        expect(brotliDecompressSync(br.rawPayload).toString(), query).toBe(plain.body);
      }
    }
    // A small answer goes in one piece, with its length.
    const small = await get(inline, 'apiId=api_main&groupBy=key');
    expect(Number(small.headers['content-length'])).toBe(small.rawPayload.length);
  });
});

describe('compression', () => {
  it('compresses large answers as Accept-Encoding asks', async () => {
    const query = 'apiId=api_main&groupBy=key&groupBy=hour&start=' + String(h.now - 47 * HOUR);
    const plain = await h.get(`${PATH}?${query}`, key);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await h.get(`${PATH}?${query}`, key, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json());
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    const br = await h.get(`${PATH}?${query}`, key, { 'accept-encoding': 'br;q=1, gzip;q=0.5' });
    expect(br.headers['content-encoding']).toBe('br');
  });
});

describe('the worker pool', () => {
  it('answers heavy queries in a worker exactly as the main thread does', async () => {
    const pooled = await service({ QUERY_WORKERS: '1', MAX_ROWS: '1000', QUERY_TIMEOUT_MS: '120000' });
    const inline = await service({ MAX_ROWS: '1000', QUERY_TIMEOUT_MS: '120000' });
    for (const query of [
      'apiId=api_main&groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=1000',
      'apiId=api_main&groupBy=identity&groupBy=day&start=0&orderBy=total&order=desc&limit=7',
      'apiId=api_main&groupBy=key&groupBy=hour&start=0',
      'apiId=api_main&groupBy=tag&groupBy=month',
    ]) {
      const [a, b] = [await get(pooled, query, { 'accept-encoding': 'gzip' }), await get(inline, query)];
      expect(a.statusCode, query).toBe(b.statusCode);
      const body = a.headers['content-encoding'] === 'gzip' ? gunzipSync(a.rawPayload).toString() : a.body;
      const [got, want] = [JSON.parse(body) as { error?: unknown }, b.json<{ error?: unknown }>()];
      // Error envelopes differ in their request ids only.
      expect(a.statusCode === 200 ? got : got.error, query).toEqual(a.statusCode === 200 ? want : want.error);
      expect(a.headers['x-precision']).toBe(b.headers['x-precision']);
    }
    // The pool's waiting line is on /metrics (empty once every answer is in); a service without workers has none.
    expect(await metricsOf(pooled)).toMatch(/^va_query_pool_waiting 0$/m);
    expect(await metricsOf(inline)).not.toMatch(/va_query_pool_waiting/);
  });

  it('stops a worker whose request ran out of budget', async () => {
    const pooled = await service({ QUERY_WORKERS: '1', QUERY_TIMEOUT_MS: '1' });
    const response = await get(
      pooled,
      'apiId=api_main&groupBy=key&groupBy=tags&groupBy=hour&start=0&limit=1000',
    );
    expect(response.statusCode).toBe(503);
    expect(response.json<ErrorEnvelope>().error.type).toBe(`${h.config.docsUrl}/query_timeout`);
  });
});

/**
 * The typed client (@va/client) against the real query service over HTTP (real Redis): answers
 * equal the raw HTTP answers, lists travel as repeated parameters, every error kind arrives as an
 * ApiError carrying the envelope, X-Precision is reported, and network failures and timeouts are
 * told apart from answers.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NetworkError, TimeoutError, createClient, type AnalyticsClient } from '@va/client';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS, HOUR_MS } from '@va/core';
import { queryHarness, type QueryHarness } from './testing/harness';

const PATH = '/v1/analytics.getVerifications';
const now = Date.now();
const thisHour = Math.floor(now / HOUR_MS) * HOUR_MS;
const oldDay = Math.floor((now - 40 * DAY_MS) / DAY_MS) * DAY_MS; // past the default hour retention (35 d)

const event = (n: number, over: Partial<VerificationEvent>): VerificationEvent => ({
  requestId: `c${n}`,
  time: thisHour - HOUR_MS,
  workspaceId: 'ws_1',
  apiId: 'api_c',
  keyId: 'key_1',
  outcome: 'VALID',
  ...over,
});

let h: QueryHarness;
let client: AnalyticsClient;

beforeAll(async () => {
  h = await queryHarness('client', { now });
  const key = await h.rootKey();
  client = await h.client(key);
  await h.registerApi('api_other', 'ws_2');
  await h.seed([
    event(1, {
      keyId: 'key_1',
      tags: ['eu', 'pro'],
      identity: { id: 'id_a', externalId: 'alice@example.com' },
    }),
    event(2, { keyId: 'key_2', tags: ['eu'], outcome: 'RATE_LIMITED' }),
    event(3, { keyId: 'key_3', time: thisHour - 2 * HOUR_MS, tags: ['us'] }),
    event(4, { keyId: 'key_1', time: oldDay + 3 * HOUR_MS }),
  ]);
});
afterAll(() => h?.close());

describe('answers', () => {
  it('equal the raw HTTP answers, lists sent as repeated parameters', async () => {
    const start = thisHour - 3 * HOUR_MS;
    const result = await client.getVerifications({
      apiId: 'api_c',
      keyId: ['key_1', 'key_2'],
      tag: ['eu'],
      groupBy: ['key', 'hour'],
      start,
      end: now,
    });
    const raw = await h.get(
      `${PATH}?apiId=api_c&keyId=key_1,key_2&tag=eu&groupBy=key,hour&start=${start}&end=${now}`,
      await h.rootKey(),
    );
    expect(raw.statusCode).toBe(200);
    expect(result.datapoints).toEqual(raw.json());
    expect(result.datapoints.filter((d) => d.total > 0).map((d) => [d.keyId, d.total])).toEqual([
      ['key_1', 1],
      ['key_2', 1],
    ]);
    expect(result.precision).toBe('hour');
    expect(result.requestId).toMatch(/^req_/);
    expect(result.timeZone).toBe('UTC');
  });

  it("reports the answer's time zone (X-Time-Zone)", async () => {
    const result = await client.getVerifications({
      apiId: 'api_c',
      timeZone: 'Asia/Kolkata',
      groupBy: ['day'],
    });
    expect(result.timeZone).toBe('Asia/Kolkata');
  });

  it('filters by externalId with reserved characters', async () => {
    const { datapoints } = await client.getVerifications({
      apiId: 'api_c',
      externalId: 'alice@example.com',
      start: 0,
    });
    expect(datapoints).toHaveLength(1);
    expect(datapoints[0]!.total).toBe(1);
  });

  it('reports X-Precision: day when part of the range is past the hour retention', async () => {
    const result = await client.getVerifications({
      apiId: 'api_c',
      start: oldDay + 12 * HOUR_MS,
      end: oldDay + 13 * HOUR_MS,
    });
    expect(result.precision).toBe('day');
    expect(result.datapoints[0]!.total).toBe(1);
  });
});

describe('errors are ApiErrors carrying the envelope', () => {
  const failure = async (c: AnalyticsClient, params: Parameters<AnalyticsClient['getVerifications']>[0]) => {
    const error = await c.getVerifications(params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  it('401 unauthorized for an unknown key', async () => {
    const error = await failure(await h.client('vak_unknown'), { apiId: 'api_c' });
    expect(error).toMatchObject({ status: 401, kind: 'unauthorized', errors: [], attempts: 1 });
    expect(error.type).toBe(`${h.config.docsUrl}/unauthorized`);
    expect(error.requestId).toMatch(/^req_/);
  });

  it('400 invalid_input with one errors[] entry per failure', async () => {
    const error = await failure(client, { apiId: 'api_c', limit: 0, start: 10 * HOUR_MS, end: HOUR_MS });
    expect(error).toMatchObject({ status: 400, kind: 'invalid_input' });
    expect(error.errors.map((e) => e.location).sort()).toEqual(['query.limit', 'query.start']);
  });

  it('403 forbidden without the permission, 404 not_found for an API of another workspace', async () => {
    const weak = await h.client(await h.rootKey(['api.api_x.read_api']));
    expect(await failure(weak, { apiId: 'api_c' })).toMatchObject({ status: 403, kind: 'forbidden' });
    expect(await failure(client, { apiId: 'api_other' })).toMatchObject({ status: 404, kind: 'not_found' });
  });
});

describe('no answer', () => {
  it('a refused connection is a NetworkError after the retries', async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'k', retry: { baseDelayMs: 1 } });
    const error = await c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ attempts: 3 });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('a server that never answers is a TimeoutError', async () => {
    let server: Server | undefined;
    try {
      server = createHttpServer(() => undefined); // accepts, never answers
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'k', timeoutMs: 300 });
      const error = await c.getVerifications({ apiId: 'a' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ timeoutMs: 300, attempts: 1 });
    } finally {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
  });
});

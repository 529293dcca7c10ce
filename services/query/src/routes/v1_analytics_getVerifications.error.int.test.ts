/**
 * Errors of GET /v1/analytics.getVerifications: every validation rule of docs/api.md#errors with its
 * location (including every `invalid` vector), the row cap, fastify's own errors and
 * unexpected failures, all in the envelope with X-Request-Id.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '@va/contracts';
import { loadConfig } from '@va/config';
import { INTERNAL_DETAIL } from '../http/error-handling';
import { createServer } from '../server';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { loadVectors } from '@va/testkit';

const PATH = '/v1/analytics.getVerifications';
let h: QueryHarness;
let key: string;

beforeAll(async () => {
  h = await queryHarness('query errors', { env: { MAX_ROWS: '1000' } });
  key = await h.rootKey();
  await h.registerApi('api_main');
  await h.seed([
    {
      requestId: 'r1',
      time: h.now - 3_600_000,
      workspaceId: 'ws_1',
      apiId: 'api_main',
      keyId: 'k1',
      outcome: 'VALID',
    },
  ]);
});
afterAll(() => h.close());

async function invalid(query: string, locations: string[]) {
  const response = await h.get(`${PATH}?${query}`, key);
  expect(response.statusCode, response.body).toBe(400);
  const body = response.json<ErrorEnvelope>();
  expect(body.error).toMatchObject({
    status: 400,
    title: 'Bad Request',
    type: `${h.config.docsUrl}/invalid_input`,
  });
  expect(body.meta.requestId).toBe(response.headers['x-request-id']);
  for (const e of body.error.errors) {
    expect(e.location).toMatch(/^query\.[A-Za-z]+$/);
    expect(typeof e.message).toBe('string');
  }
  expect(body.error.errors.map((e) => e.location)).toEqual(expect.arrayContaining(locations));
  return body.error.errors;
}

describe('the contract vectors: invalid', () => {
  const vectors = loadVectors();
  it.each(vectors.invalid.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const response = await h.get(`${PATH}?${c.query}`, key);
    expect(response.statusCode).toBe(c.status);
    const body = response.json<ErrorEnvelope>();
    expect(body.error.type.endsWith(`/${c.type}`)).toBe(true);
    expect(body.error.errors.some((e) => c.anyLocationOf.includes(e.location))).toBe(true);
  });
});

describe('validation rules (docs/api.md#errors)', () => {
  it.each([
    ['missing apiId', 'groupBy=day', ['query.apiId']],
    ['apiId not an identifier', 'apiId=a%7Db', ['query.apiId']],
    ['apiId too long', `apiId=${'a'.repeat(256)}`, ['query.apiId']],
    ['apiId empty', 'apiId=', ['query.apiId']],
    ['externalId with a control character', 'apiId=api_main&externalId=a%01b', ['query.externalId']],
    ['externalId empty', 'apiId=api_main&externalId=', ['query.externalId']],
    ['keyId not an identifier', 'apiId=api_main&keyId=k1,k%20two', ['query.keyId']],
    ['tag too long', `apiId=api_main&tag=${'t'.repeat(129)}`, ['query.tag']],
    ['start negative', 'apiId=api_main&start=-1', ['query.start']],
    ['start past year 9999', 'apiId=api_main&start=253402300800000', ['query.start']],
    ['start a decimal', 'apiId=api_main&start=1.5', ['query.start']],
    ['start in exponent notation', 'apiId=api_main&start=1e12', ['query.start']],
    ['end not a number', 'apiId=api_main&end=now', ['query.end']],
    ['end repeated', 'apiId=api_main&end=1&end=2', ['query.end']],
    ['start after end', 'apiId=api_main&start=7200000&end=3600000', ['query.start']],
    [
      'start after the default end (now)',
      `apiId=api_main&start=${Date.now() + 86_400_000 * 2}`,
      ['query.start'],
    ],
    ['limit zero', 'apiId=api_main&limit=0', ['query.limit']],
    ['limit over the cap', 'apiId=api_main&limit=1001', ['query.limit']],
    ['limit text', 'apiId=api_main&limit=ten', ['query.limit']],
    ['limit repeated', 'apiId=api_main&limit=1&limit=1', ['query.limit']],
    ['unknown groupBy', 'apiId=api_main&groupBy=week', ['query.groupBy']],
    ['two granularities', 'apiId=api_main&groupBy=day&groupBy=hour', ['query.groupBy']],
    ['tag with tags', 'apiId=api_main&groupBy=tag,tags', ['query.groupBy']],
    ['unknown orderBy', 'apiId=api_main&orderBy=name', ['query.orderBy']],
    ['orderBy time without granularity', 'apiId=api_main&orderBy=time&groupBy=key', ['query.orderBy']],
    ['unknown order', 'apiId=api_main&order=ASC', ['query.order']],
    ['order repeated', 'apiId=api_main&order=asc&order=desc', ['query.order']],
    ['unknown parameter', 'apiId=api_main&format=csv', ['query.format']],
    [
      'several failures at once',
      'apiId=api_main&limit=0&order=up&bogus=1',
      ['query.limit', 'query.order', 'query.bogus'],
    ],
  ])('%s', async (_name, query, locations) => {
    const errors = await invalid(query, locations);
    expect(errors).toHaveLength(locations.length);
  });

  it('gives a fix where one helps', async () => {
    const [error] = await invalid('apiId=api_main&limit=0', ['query.limit']);
    expect(error!.fix).toBeTruthy();
  });

  it('accepts empty and null start/end as absent, and empty list items', async () => {
    for (const q of ['start=&end=', 'start=null&end=null', 'keyId=,k1,,', 'groupBy=&tag=']) {
      const response = await h.get(`${PATH}?apiId=api_main&${q}`, key);
      expect(response.statusCode, `${q}: ${response.body}`).toBe(200);
    }
  });
});

describe('the text rule (docs/api.md): externalId and tags', () => {
  it.each([
    ['a C1 control in externalId', 'externalId=a%C2%85b', 'query.externalId'],
    ['a right-to-left override in externalId', 'externalId=invoice%E2%80%AEfdp', 'query.externalId'],
    ['a line separator in a tag', 'tag=a%E2%80%A8b', 'query.tag'],
    ['a bidi isolate in a tag', 'tag=ok,%E2%81%A6x%E2%81%A9', 'query.tag'],
  ])('%s is 400 invalid_input at its parameter, saying why', async (_name, query, location) => {
    const errors = await invalid(`apiId=api_main&${query}`, [location]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/bidirectional controls/);
  });

  it('letters of any script and emoji are fine', async () => {
    const response = await h.get(`${PATH}?apiId=api_main&tag=${encodeURIComponent('東京 🚀')}`, key);
    expect(response.statusCode, response.body).toBe(200);
  });
});

describe('the row cap (MAX_ROWS=1000 here)', () => {
  it('refuses a result over the cap without a limit, at query.limit', async () => {
    const [error] = await invalid(`apiId=api_main&groupBy=hour&start=0&end=${3_600_000 * 1000}`, [
      'query.limit',
    ]);
    expect(error!.fix).toMatch(/limit|narrow/);
  });

  it('answers the same range with a limit', async () => {
    const response = await h.get(
      `${PATH}?apiId=api_main&groupBy=hour&start=0&end=${3_600_000 * 1000}&limit=5`,
      key,
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(5);
  });

  it('answers a range of millions of hours with a limit, data rows first when ordered by total', async () => {
    const response = await h.get(
      `${PATH}?apiId=api_main&groupBy=hour&start=0&end=253402300799999&limit=3&orderBy=total&order=desc`,
      key,
    );
    expect(response.statusCode).toBe(200);
    const rows = response.json<{ time: number; total: number }[]>();
    expect(rows.map((r) => r.total)).toEqual([1, 0, 0]);
    expect(rows.slice(1).map((r) => r.time)).toEqual([0, 3_600_000]);
  });
});

describe("fastify's own errors, in the envelope", () => {
  it('an unknown route is 404 not_found', async () => {
    const response = await h.get('/v1/analytics.getNothing', key);
    expect(response.statusCode).toBe(404);
    const body = response.json<ErrorEnvelope>();
    expect(body.error.type).toBe(`${h.config.docsUrl}/not_found`);
    expect(response.headers['x-request-id']).toBe(body.meta.requestId);
  });

  it('another method on the route is 404 not_found', async () => {
    const response = await h.app.inject({ method: 'POST', url: `${PATH}?apiId=api_main`, payload: {} });
    expect(response.statusCode).toBe(404);
    expect(response.json<ErrorEnvelope>().error.type).toBe(`${h.config.docsUrl}/not_found`);
  });

  it('a GET with a body of an unknown content type or too large', async () => {
    for (const [payload, type] of [
      ['<x/>', 'application/xml'],
      ['x'.repeat(100_000), 'application/json'],
    ] as const) {
      const response = await h.app.inject({
        method: 'GET',
        url: `${PATH}?apiId=api_main`,
        payload,
        headers: { 'content-type': type, authorization: `Bearer ${key}` },
      });
      expect(response.statusCode).toBeGreaterThanOrEqual(200);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.headers['x-request-id']).toMatch(/^req_/);
      if (response.statusCode >= 400) {
        expect(response.json<ErrorEnvelope>().error.type).toMatch(/\/(invalid_input|not_found)$/);
      }
    }
  });

  it('a malformed URL is 400 invalid_input', async () => {
    const response = await h.get('/v1/analytics.getVerifications%E0%A4%A', key);
    expect([400, 404]).toContain(response.statusCode);
    expect(response.json<ErrorEnvelope>().meta.requestId).toBe(response.headers['x-request-id']);
  });
});

describe('unexpected failures', () => {
  it('are 500 internal_server_error with a generic detail, logged with the request id', async () => {
    const logged: string[] = [];
    const redis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    const app = await createServer({ redis, config: loadConfig({}), logger });
    try {
      const response = await app.inject({
        method: 'GET',
        url: `${PATH}?apiId=a`,
        headers: { authorization: 'Bearer x' },
      });
      expect(response.statusCode).toBe(500);
      const body = response.json<ErrorEnvelope>();
      expect(body.error).toMatchObject({ status: 500, detail: INTERNAL_DETAIL, errors: [] });
      expect(body.error.type.endsWith('/internal_server_error')).toBe(true);
      expect(response.body).not.toMatch(/redis|stream|ECONN|Error:|\.ts/i);
      expect(logged.some((line) => line.includes(body.meta.requestId))).toBe(true);
      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(503);
    } finally {
      await app.close();
      redis.disconnect();
    }
  });
});

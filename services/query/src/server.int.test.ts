/** The service's other endpoints: the probes, metrics, the access log, /openapi.json, /docs. */
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import { createServer } from './server';
import { queryHarness, type QueryHarness } from './testing/harness';

let h: QueryHarness;
beforeAll(async () => {
  h = await queryHarness('query server');
});
afterAll(() => h.close());

describe('probes', () => {
  it('#45: /readyz and /health are 200 once Redis answers; /livez is 200', async () => {
    for (const url of ['/readyz', '/health', '/livez']) {
      const response = await h.get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.json(), url).toEqual({ ok: true });
      expect(response.headers['x-request-id'], url).toMatch(/^req_/);
    }
  });

  it('#45: before Redis is connected, /readyz and /health are 503 and /livez is 200', async () => {
    const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true });
    const app = await createServer({ redis, config: loadConfig({}) });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/livez' })).statusCode).toBe(200);
    } finally {
      await app.close();
      redis.disconnect();
    }
  });
});

describe('metrics', () => {
  it('counts requests of the query route by status and times them', async () => {
    const registry = new Registry();
    const app = await createServer({ redis: h.redis, config: h.config, registry });
    try {
      await app.inject({ method: 'GET', url: '/v1/analytics.getVerifications?apiId=x' });
      await app.inject({ method: 'GET', url: '/v1/analytics.getVerifications?apiId=x' });
      await app.inject({ method: 'GET', url: '/health' });
      const text = await registry.metrics();
      expect(text).toContain('va_query_requests_total{status="401"} 2');
      expect(text).toContain('va_query_duration_seconds_count 2');
      expect(text).toMatch(/va_query_duration_seconds_bucket\{le="0.005"\} \d/);
    } finally {
      await app.close();
    }
  });

  it('#45: /metrics is not served on the public port (main.ts serves it on QUERY_METRICS_PORT)', async () => {
    expect((await h.get('/metrics')).statusCode).toBe(404);
  });
});

describe('access log', () => {
  /** A server whose logger writes into an array, with QUERY_ACCESS_LOG as given. */
  async function logged(accessLog: string) {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const config = loadConfig({
      REDIS_URL: h.config.redisUrl,
      REDIS_KEY_PREFIX: h.config.keyPrefix,
      QUERY_WORKERS: '0',
      QUERY_ACCESS_LOG: accessLog,
    });
    const app = await createServer({ redis: h.redis, config, logger: pino({ level: 'info' }, sink) });
    for (let i = 0; i < 20; i++)
      await app.inject({ method: 'GET', url: '/v1/analytics.getVerifications?apiId=x' });
    await app.close();
    return lines.filter((line) => line.msg === 'request');
  }

  it('#45: QUERY_ACCESS_LOG=on writes a line per request, off none, a share some', async () => {
    const on = await logged('on');
    expect(on).toHaveLength(20);
    expect(on[0]).toMatchObject({ method: 'GET', route: '/v1/analytics.getVerifications', status: 401 });
    expect(await logged('off')).toEqual([]);
    const some = (await logged('0.5')).length;
    expect(some).toBeGreaterThan(0);
    expect(some).toBeLessThan(20);
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the route, its parameters, datapoints and the error envelope', async () => {
    const response = await h.get('/openapi.json');
    expect(response.statusCode).toBe(200);
    const doc = response.json<{
      openapi: string;
      paths: Record<
        string,
        { get: { parameters: { name: string; in: string }[]; responses: Record<string, unknown> } }
      >;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    }>();
    expect(doc.openapi).toBe('3.1.0');
    const get = doc.paths['/v1/analytics.getVerifications']!.get;
    expect(get.parameters.map((p) => p.name).sort()).toEqual(
      [
        'apiId',
        'end',
        'externalId',
        'groupBy',
        'keyId',
        'limit',
        'order',
        'orderBy',
        'region',
        'start',
        'tag',
        'timeZone',
      ].sort(),
    );
    expect(get.parameters.every((p) => p.in === 'query')).toBe(true);
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(['200', '4XX', '5XX']));
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Datapoint', 'ErrorEnvelope']),
    );
    expect(doc.components.securitySchemes.rootKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(JSON.stringify(doc)).not.toContain('def-');
    expect(doc.paths['/metrics']).toBeUndefined();
  });

  it('documents GET /v1/apis.list with its answer schema ApiList (#45)', async () => {
    const doc = (await h.get('/openapi.json')).json<{
      paths: Record<string, { get?: { operationId: string; responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, unknown> };
    }>();
    const list = doc.paths['/v1/apis.list']?.get;
    expect(list?.operationId).toBe('listApis');
    expect(JSON.stringify(list?.responses['200'])).toContain('ApiList');
    expect(doc.components.schemas.ApiList).toBeDefined();
  });

  it('describes every query parameter with words and an example (from the typebox schemas, as docs/api.md)', async () => {
    const doc = (await h.get('/openapi.json')).json<{
      paths: Record<string, { get: { parameters: Record<string, unknown>[] } }>;
    }>();
    for (const p of doc.paths['/v1/analytics.getVerifications']!.get.parameters) {
      const schema = p.schema as Record<string, unknown> | undefined;
      const description = p.description ?? schema?.description;
      expect(String(description ?? ''), String(p.name)).toMatch(/\w.{20,}/);
      const example = p.example ?? p.examples ?? schema?.example ?? schema?.examples;
      expect(example, String(p.name)).toBeDefined();
    }
  });

  it('has a docs page', async () => {
    const response = await h.get('/docs/');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });
});

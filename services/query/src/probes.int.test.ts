/**
 * #45 "operating the services", the query service as a process (dist/main.js) on a Redis of its own that the
 * test can crash and freeze: /livez (the process runs) apart from /readyz and its alias /health (Redis
 * answers), on the public port and on the internal one; /metrics on the internal port only
 * (QUERY_METRICS_PORT); one JSON access-log line per request (QUERY_ACCESS_LOG, default on).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS, hourOf } from '@va/core';
import { loadConfig } from '@va/config';
import { seedEvents } from '@va/ingest/testing';
import { compactApi, createRootKey, sealApi } from '@va/store';
import {
  startRedisServer,
  startService,
  testEnv,
  waitFor,
  type RedisServer,
  type ServiceProcess,
} from '@va/testkit/support';

let redis: RedisServer;
let svc: ServiceProcess;
let dir: string;
let publicUrl: string;
let internalUrl: string;
let keyPrefix: string;

beforeAll(async () => {
  const t = await testEnv('query probes');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'query-probes-'));
  redis = await startRedisServer({ dir });
  // LOG_LEVEL info: the access log writes at info (testEnv sets warn). QUERY_ACCESS_LOG is left unset: on by default.
  svc = startService('query', { ...t.env, REDIS_URL: redis.url, LOG_LEVEL: 'info' });
  publicUrl = t.queryUrl;
  keyPrefix = t.keyPrefix;
  internalUrl = `http://127.0.0.1:${t.queryMetricsPort}`;
  await svc.waitForHealth(`${publicUrl}/readyz`);
});
afterAll(async () => {
  await svc?.kill('SIGKILL');
  await redis?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Status of GET url, on a connection of its own (a probe must not reuse a socket a killed server left). */
async function status(url: string): Promise<number> {
  const response = await fetch(url, {
    headers: { connection: 'close' },
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}

const probes = async () => ({
  livez: await status(`${publicUrl}/livez`),
  readyz: await status(`${publicUrl}/readyz`),
  health: await status(`${publicUrl}/health`),
  internalLivez: await status(`${internalUrl}/livez`),
  internalReadyz: await status(`${internalUrl}/readyz`),
  internalHealth: await status(`${internalUrl}/health`),
});
const all = (code: number) => ({
  livez: 200,
  readyz: code,
  health: code,
  internalLivez: 200,
  internalReadyz: code,
  internalHealth: code,
});

/** The access-log lines (msg "request") of the service's log so far. */
function accessLines(): Record<string, unknown>[] {
  return svc
    .readLog()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request');
}

describe('query service: metrics on the internal port', () => {
  it('#45: /metrics is served on QUERY_METRICS_PORT, in Prometheus text, and not on the public port', async () => {
    await fetch(`${publicUrl}/v1/analytics.getVerifications?apiId=api_probe`).then((r) => r.arrayBuffer());
    const response = await fetch(`${internalUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/^va_query_requests_total\{[^}]*status="401"[^}]*\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="query"\} /m);
    expect(await status(`${publicUrl}/metrics`)).toBe(404);
  });
});

describe('query service: access log', () => {
  it('#45: one JSON line per request: method, route, status, duration, request id, principal kind, bytes', async () => {
    const calls = [
      { auth: 'Bearer sk_not_a_key', principal: 'rootKey' },
      { auth: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', principal: 'readToken' },
      { auth: undefined, principal: 'none' },
    ];
    const sent: { requestId: string; principal: string; bodyBytes: number }[] = [];
    for (const call of calls) {
      const response = await fetch(`${publicUrl}/v1/analytics.getVerifications?apiId=api_secret_id`, {
        headers: { ...(call.auth && { authorization: call.auth }), 'accept-encoding': 'identity' },
      });
      const body = await response.arrayBuffer();
      expect(response.status).toBe(401);
      sent.push({
        requestId: response.headers.get('x-request-id')!,
        principal: call.principal,
        bodyBytes: body.byteLength,
      });
    }
    const readyz = await fetch(`${publicUrl}/readyz`);
    await readyz.arrayBuffer();

    // The line is written once the response has gone out: give the log a moment to reach the file.
    await waitFor(() => accessLines().some((l) => l.requestId === readyz.headers.get('x-request-id')), {
      timeoutMs: 10_000,
      message: 'access-log line of /readyz',
    });
    const lines = accessLines();
    for (const { requestId, principal, bodyBytes } of sent) {
      const mine = lines.filter((l) => l.requestId === requestId);
      expect(mine, requestId).toHaveLength(1);
      const line = mine[0]!;
      expect(line).toMatchObject({
        level: 30,
        service: 'query',
        method: 'GET',
        route: '/v1/analytics.getVerifications',
        status: 401,
        principal,
      });
      expect(line.durationMs).toEqual(expect.any(Number));
      // On the wire: the status line and headers, then the body.
      expect(line.bytes as number).toBeGreaterThan(bodyBytes);
      expect(line.bytes as number).toBeLessThan(bodyBytes + 2_000);
      // The route's pattern, not the URL: query strings carry identifiers.
      expect(JSON.stringify(line)).not.toContain('api_secret_id');
    }
    const probeLine = lines.find((l) => l.requestId === readyz.headers.get('x-request-id'));
    expect(probeLine).toMatchObject({ route: '/readyz', status: 200, principal: 'none' });
  });
});

describe('query service: liveness and readiness', () => {
  it('#45: /livez, /readyz and /health are 200 while Redis answers, on both ports', async () => {
    expect(await probes()).toEqual(all(200));
  });

  it('#45: Redis down: /readyz and /health are 503, /livez stays 200; back to 200 when Redis is', async () => {
    await redis.kill('SIGKILL');
    await waitFor(async () => (await status(`${publicUrl}/readyz`)) === 503, {
      timeoutMs: 10_000,
      message: '/readyz 503 with Redis down',
    });
    expect(await probes()).toEqual(all(503));
    await redis.restart();
    await waitFor(async () => (await status(`${publicUrl}/readyz`)) === 200, {
      timeoutMs: 30_000,
      message: '/readyz 200 with Redis back',
    });
    expect(await probes()).toEqual(all(200));
  });

  it('#45: Redis hung (connection open, no answers): /readyz is 503 after the PING times out', async () => {
    process.kill(redis.pid, 'SIGSTOP');
    try {
      const started = Date.now();
      expect(await status(`${publicUrl}/readyz`)).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await status(`${publicUrl}/livez`)).toBe(200);
      expect(await status(`${internalUrl}/readyz`)).toBe(503);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    await waitFor(async () => (await status(`${publicUrl}/readyz`)) === 200, {
      timeoutMs: 30_000,
      message: '/readyz 200 once Redis answers again',
    });
  });
});

describe('query service: access log of a query', () => {
  it("#45: a query's line carries its section-cache use: sections Redis sent (misses), then cached ones (hits)", async () => {
    const client = new Redis(redis.url);
    try {
      const now = Date.now();
      const retention = loadConfig({}).retention;
      const hour = hourOf(now) - 3;
      const events: VerificationEvent[] = Array.from({ length: 20 }, (_, n) => ({
        requestId: `probe-${n}`,
        time: hour * HOUR_MS + n,
        workspaceId: 'ws_probe',
        apiId: 'api_probe',
        keyId: `key_${n % 4}`,
        outcome: 'VALID',
      }));
      await seedEvents(client, events, { prefix: keyPrefix, now, retention });
      const space = { prefix: keyPrefix, generation: 1 };
      await compactApi(client, space, 'api_probe', { closedBound: hourOf(now) - 2, retention, now });
      await sealApi(client, space, 'api_probe', hourOf(now) - 2, { now, retention });
      const { key } = await createRootKey(client, keyPrefix, {
        workspaceId: 'ws_probe',
        permissions: ['api.*.read_api'],
        now,
      });
      const url =
        `${publicUrl}/v1/analytics.getVerifications?apiId=api_probe&groupBy=key` +
        `&start=${hour * HOUR_MS}&end=${(hour + 1) * HOUR_MS - 1}`;
      const ids: string[] = [];
      for (let n = 0; n < 2; n++) {
        const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        expect(response.status).toBe(200);
        expect(((await response.json()) as unknown[]).length).toBe(4);
        ids.push(response.headers.get('x-request-id')!);
      }
      await waitFor(() => ids.every((id) => accessLines().some((l) => l.requestId === id)), {
        timeoutMs: 10_000,
        message: 'access-log lines of both queries',
      });
      const [first, second] = ids.map((id) => accessLines().find((l) => l.requestId === id)!);
      expect(first).toMatchObject({ route: '/v1/analytics.getVerifications', status: 200, cacheHits: 0 });
      expect(first!.cacheMisses).toBeGreaterThan(0);
      expect(second).toMatchObject({ cacheMisses: 0 });
      expect(second!.cacheHits).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });
});

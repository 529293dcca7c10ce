/**
 * The query service as a process (`services/query/src/main.ts`): serves on PORT once Redis is
 * up, answers malformed HTTP in the envelope, and SIGTERM stops it cleanly (exit 0).
 */
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv, type TestEnv, startService, type ServiceProcess } from '@va/testkit/support';
import { deletePrefix } from '@va/store/testing';

let t: TestEnv;
let svc: ServiceProcess;
beforeAll(async () => {
  t = await testEnv('query process');
  svc = startService('query', t.env);
  await svc.waitForHealth(`${t.queryUrl}/health`);
});
afterAll(async () => {
  await svc.kill('SIGKILL');
  await deletePrefix(t.redisUrl, t.keyPrefix);
});

it('answers over HTTP with X-Request-Id on every response', async () => {
  for (const path of [
    '/health',
    '/v1/analytics.getVerifications?apiId=a',
    '/nope',
    '/openapi.json',
    '/livez',
  ]) {
    const response = await fetch(`${t.queryUrl}${path}`);
    expect(response.headers.get('x-request-id'), path).toMatch(/^req_[0-9a-f]{24}$/);
  }
  const unauthorized = await fetch(`${t.queryUrl}/v1/analytics.getVerifications?apiId=a`);
  expect(unauthorized.status).toBe(401);
});

it('answers malformed HTTP with the envelope', async () => {
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(t.port, '127.0.0.1', () =>
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
    );
    let data = '';
    socket.on('data', (chunk) => (data += String(chunk)));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  expect(raw).toMatch(/^HTTP\/1.1 400 /);
  const requestId = /X-Request-Id: (req_[0-9a-f]+)/.exec(raw)?.[1];
  const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as {
    meta: { requestId: string };
    error: { type: string };
  };
  expect(body.meta.requestId).toBe(requestId);
  expect(body.error.type).toMatch(/\/invalid_input$/);
});

it('stops cleanly on SIGTERM', async () => {
  expect(await svc.kill('SIGTERM')).toBe(0);
});

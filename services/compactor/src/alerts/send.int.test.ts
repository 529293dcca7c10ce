// sendWebhook against real HTTP receivers on 127.0.0.1 (docs/alerts.md "Addresses"): with private
// addresses not allowed (ALERTS_ALLOW_PRIVATE_URLS=off, the default) a loopback receiver is refused,
// whether the URL names the address or a host name that resolves to it, and the receiver sees nothing;
// allowed, the same request arrives. A receiver that never answers is a failed attempt at the deadline.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from './send';

let server: http.Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    requests++;
    if (request.url === '/silent') return; // never answers
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const send = (url: string, allowPrivate: boolean, timeoutMs = 10_000) =>
  sendWebhook({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs, allowPrivate });

describe('sendWebhook', () => {
  it('refuses loopback with private addresses off, by address and by host name', async () => {
    for (const url of [
      `http://127.0.0.1:${port}/a`,
      `http://localhost:${port}/a`,
      `http://[::ffff:127.0.0.1]:${port}/a`,
    ]) {
      const result = await send(url, false);
      expect(result.outcome, url).toBe('refused');
      expect((result as { error: string }).error).toMatch(/not a public address/);
    }
    expect(requests).toBe(0);
  });

  it('sends to the same receiver when private addresses are allowed', async () => {
    expect(await send(`http://127.0.0.1:${port}/a`, true)).toEqual({ outcome: 'delivered', status: 204 });
    expect(await send(`http://localhost:${port}/a`, true)).toEqual({ outcome: 'delivered', status: 204 });
    expect(requests).toBe(2);
  });

  it('fails an attempt that gets no answer within its deadline', async () => {
    const result = await send(`http://127.0.0.1:${port}/silent`, true, 300);
    expect(result).toEqual({ outcome: 'failed', error: 'no answer within 300 ms' });
  });
});

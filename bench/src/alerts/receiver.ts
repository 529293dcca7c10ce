/**
 * The webhook receiver of the alerts run: a node:http server in the bench process on 127.0.0.1 (the
 * compactor runs with ALERTS_ALLOW_PRIVATE_URLS=on to send there), answering 204 to every POST. It notes
 * the arrival of each webhook-id (the first one: delivery is at least once, a repeat is counted apart) with
 * the crossing's detectedAt from the body, and checks that the body names the same alert id as the header.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  /** webhook-id -> unix ms of its first arrival (the whole body read). */
  arrivals: Map<string, number>;
  /** webhook-id -> the crossing's detectedAt (the clock of the batch that crossed it), from the body. */
  detected: Map<string, number>;
  /** Webhooks whose id had arrived before. */
  repeats: number;
  /** Requests without a webhook-id, or whose body's alertId is not it. */
  malformed: number;
  /** Unix ms of the latest arrival. */
  lastAt: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<WebhookReceiver> {
  const server = http.createServer({ keepAliveTimeout: 5_000 });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`,
    arrivals: new Map(),
    detected: new Map(),
    repeats: 0,
    malformed: 0,
    lastAt: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      const id = request.headers['webhook-id'];
      let data: { alertId?: unknown; detectedAt?: unknown } | undefined;
      try {
        data = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: typeof data }).data;
      } catch {
        data = undefined;
      }
      if (typeof id !== 'string' || data?.alertId !== id) receiver.malformed++;
      else if (receiver.arrivals.has(id)) receiver.repeats++;
      else {
        receiver.arrivals.set(id, at);
        if (typeof data.detectedAt === 'number') receiver.detected.set(id, data.detectedAt);
      }
      receiver.lastAt = at;
      response.writeHead(204).end();
    });
  });
  return receiver;
}

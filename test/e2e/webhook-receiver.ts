/**
 * A Standard Webhooks receiver for end-to-end tests: a real node http server on 127.0.0.1 that verifies every
 * request's signature with the `standardwebhooks` package (independent of the sender's code), answers 500 while
 * `failing` is set and 200 otherwise, and tallies what it got per `webhook-id`.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AlertWebhookPayload } from '@va/contracts';

export interface WebhookReceiver {
  url: string;
  /** The endpoint's secret (whsec_…): set once the endpoint is created, before any webhook is due. */
  secret: string;
  /** While true, every request is answered 500. */
  failing: boolean;
  /** webhook-id -> requests answered 200 (more than 1: duplicate deliveries). */
  delivered: Map<string, number>;
  /** Requests answered 500. */
  refused: number;
  /** Requests whose signature did not verify, or whose body names another alert than their webhook-id. */
  forged: string[];
  close(): Promise<void>;
}

/** Requests answered 200 beyond the first of their webhook-id. */
export const duplicates = (receiver: WebhookReceiver): number =>
  [...receiver.delivered.values()].reduce((sum, n) => sum + n - 1, 0);

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/usage`,
    secret: '',
    failing: false,
    delivered: new Map(),
    refused: 0,
    forged: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  // The raw body as received: a signature is over the bytes sent, never over re-serialized JSON.
  function verify(body: string, headers: http.IncomingHttpHeaders): void {
    const id = String(headers['webhook-id']);
    try {
      const payload = new Webhook(receiver.secret).verify(body, headers as Record<string, string>);
      if ((payload as AlertWebhookPayload).data.alertId !== id) receiver.forged.push(`${id}: another alert`);
    } catch (err) {
      receiver.forged.push(`${id}: ${(err as Error).message}`);
    }
  }

  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      verify(body, request.headers);
      if (receiver.failing) {
        receiver.refused++;
        response.writeHead(500).end();
        return;
      }
      const id = String(request.headers['webhook-id']);
      receiver.delivered.set(id, (receiver.delivered.get(id) ?? 0) + 1);
      response.writeHead(200).end();
    });
  });
  return receiver;
}

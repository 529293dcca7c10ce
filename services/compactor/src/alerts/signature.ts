/**
 * Standard Webhooks signing (docs/alerts.md "Delivery"): the signature of a webhook is `v1,` + base64 of
 * HMAC-SHA256, keyed with the bytes of the endpoint's secret (base64 after `whsec_`), over
 * `<webhook-id>.<webhook-timestamp>.<body>`. Pure.
 */
import { createHmac } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The value of the webhook-signature header. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a signed webhook (and its content type). */
export function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': webhookSignature(secret, id, timestampSeconds, body),
  };
}

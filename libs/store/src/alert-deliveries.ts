/**
 * FORMAT: the delivery log of an API (docs/alerts.md "Delivery log"): a stream in the API's slot,
 * `<p>:{a}:alerts:deliveries`, one entry per attempt, the attempt as JSON in the field `a`, capped at
 * about DELIVERY_LOG_LENGTH entries (the oldest go first).
 */
import type { DeliveryAttempt } from '@va/contracts';
import type { RedisClient } from './connection';
import { alertKeys } from './keys';

export const DELIVERY_LOG_LENGTH = 10_000;

export async function appendDeliveryAttempt(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  attempt: DeliveryAttempt,
): Promise<void> {
  await redis.xadd(
    alertKeys(prefix, apiId).deliveries,
    'MAXLEN',
    '~',
    DELIVERY_LOG_LENGTH,
    '*',
    'a',
    JSON.stringify(attempt),
  );
}

/** Newest first, at most `limit`; only those of `alertId` when given (read in pages, newest first). */
export async function listDeliveryAttempts(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  options: { alertId?: string; limit: number },
): Promise<DeliveryAttempt[]> {
  const key = alertKeys(prefix, apiId).deliveries;
  const out: DeliveryAttempt[] = [];
  let end = '+';
  for (;;) {
    const page = (await redis.xrevrange(key, end, '-', 'COUNT', 1000)) as [string, string[]][];
    for (const [, fields] of page) {
      const attempt = JSON.parse(fields[1]!) as DeliveryAttempt;
      if (options.alertId !== undefined && attempt.alertId !== options.alertId) continue;
      out.push(attempt);
      if (out.length >= options.limit) return out;
    }
    if (page.length < 1000) return out;
    end = `(${page[page.length - 1]![0]}`;
  }
}

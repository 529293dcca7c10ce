/**
 * What the alerts run writes before it starts a service, as the API's routes write it (libs/store
 * createAlertRule, registerApi, createAlertEndpoint), and what it reads after: the crossings appended and
 * the delivery log.
 */
import type { Redis } from 'ioredis';
import type { AlertRule } from '@va/contracts';
import {
  alertKeys,
  createAlertEndpoint,
  createAlertRule,
  DELIVERY_LOG_LENGTH,
  listDeliveryAttempts,
  newEndpointId,
  newWebhookSecret,
  registerApi,
} from '@va/store';
import { workspacesOf, type PlannedApi } from './plan';

const IN_FLIGHT = 64;

/** Stores the rules, 64 at a time; answers the seconds it took. */
export async function storeRules(redis: Redis, prefix: string, rules: readonly AlertRule[]): Promise<number> {
  const started = Date.now();
  for (let n = 0; n < rules.length; n += IN_FLIGHT)
    await Promise.all(rules.slice(n, n + IN_FLIGHT).map((rule) => createAlertRule(redis, prefix, rule)));
  return (Date.now() - started) / 1000;
}

/**
 * Registers the APIs with their workspaces (as creating them does) and gives every workspace with rules
 * one endpoint at `url` that receives all of its rules; answers the endpoints made.
 */
export async function registerEndpoints(
  redis: Redis,
  prefix: string,
  apis: readonly PlannedApi[],
  rules: readonly AlertRule[],
  url: string,
): Promise<number> {
  for (const api of apis) await registerApi(redis, prefix, api.apiId, api.workspaceId);
  const workspaces = workspacesOf(rules, apis);
  for (const workspaceId of workspaces) {
    await createAlertEndpoint(redis, prefix, workspaceId, {
      endpointId: newEndpointId(),
      url,
      createdAt: Date.now(),
      secret: newWebhookSecret(),
    });
  }
  return workspaces.length;
}

/** Entries in the crossings streams of the APIs. */
export async function crossingsAppended(
  redis: Redis,
  prefix: string,
  apis: readonly PlannedApi[],
): Promise<number> {
  const pipeline = redis.pipeline();
  for (const api of apis) pipeline.xlen(alertKeys(prefix, api.apiId).crossings);
  let total = 0;
  for (const [err, n] of (await pipeline.exec()) ?? []) {
    if (err) throw err;
    total += Number(n);
  }
  return total;
}

export interface DeliveryLogSummary {
  /** Attempts by outcome (delivered, failed, refused, gave_up, dropped). */
  outcomes: Record<string, number>;
  /** Attempts after the first (retries). */
  retries: number;
  /** The distinct errors of failed attempts, at most 5. */
  errors: string[];
}

/** The APIs' delivery logs (each keeps its last DELIVERY_LOG_LENGTH attempts). */
export async function deliveryLog(
  redis: Redis,
  prefix: string,
  apis: readonly PlannedApi[],
): Promise<DeliveryLogSummary> {
  const summary: DeliveryLogSummary = { outcomes: {}, retries: 0, errors: [] };
  for (const { apiId } of apis) {
    for (const a of await listDeliveryAttempts(redis, prefix, apiId, { limit: DELIVERY_LOG_LENGTH })) {
      summary.outcomes[a.outcome] = (summary.outcomes[a.outcome] ?? 0) + 1;
      if (a.attempt > 1) summary.retries++;
      if (a.error !== undefined && summary.errors.length < 5 && !summary.errors.includes(a.error))
        summary.errors.push(a.error);
    }
  }
  return summary;
}

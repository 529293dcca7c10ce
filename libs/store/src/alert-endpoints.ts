/**
 * Webhook endpoints of a workspace (docs/alerts.md "Webhook endpoints"): one hash per workspace,
 * endpointId -> the endpoint as JSON, its signing secret included (delivery signs with it). Only this
 * module and the delivery worker see the secret; the API answers it once, at creation.
 */
import { randomBytes } from 'node:crypto';
import type { AlertEndpoint } from '@va/contracts';
import type { RedisClient } from './connection';
import { alertGlobalKeys } from './keys';

/** A stored endpoint: what listEndpoints answers, and the secret. */
export interface StoredAlertEndpoint extends AlertEndpoint {
  secret: string;
}

/** `whsec_` + base64 of 24 random bytes (the Standard Webhooks secret format). */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;
export const newEndpointId = (): string => `ep_${randomBytes(12).toString('hex')}`;

export async function createAlertEndpoint(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
  endpoint: StoredAlertEndpoint,
): Promise<void> {
  await redis.hset(
    alertGlobalKeys(prefix).endpoints(workspaceId),
    endpoint.endpointId,
    JSON.stringify(endpoint),
  );
}

/** The workspace's endpoints with their secrets, oldest first (the delivery worker's read). */
export async function readAlertEndpoints(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
): Promise<StoredAlertEndpoint[]> {
  const values = await redis.hvals(alertGlobalKeys(prefix).endpoints(workspaceId));
  return values
    .map((value) => JSON.parse(value) as StoredAlertEndpoint)
    .sort((a, b) => a.createdAt - b.createdAt || (a.endpointId < b.endpointId ? -1 : 1));
}

/** One endpoint with its secret, or null. */
export async function findAlertEndpoint(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
  endpointId: string,
): Promise<StoredAlertEndpoint | null> {
  const value = await redis.hget(alertGlobalKeys(prefix).endpoints(workspaceId), endpointId);
  return value === null ? null : (JSON.parse(value) as StoredAlertEndpoint);
}

/** The endpoint without its secret: the only shape the API answers after creation. */
export function publicEndpoint({ secret: _secret, ...endpoint }: StoredAlertEndpoint): AlertEndpoint {
  return endpoint;
}

export async function countAlertEndpoints(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
): Promise<number> {
  return redis.hlen(alertGlobalKeys(prefix).endpoints(workspaceId));
}

/** false when the workspace had no endpoint of that id. */
export async function deleteAlertEndpoint(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
  endpointId: string,
): Promise<boolean> {
  return (await redis.hdel(alertGlobalKeys(prefix).endpoints(workspaceId), endpointId)) === 1;
}

/** Whether an endpoint receives the crossings of a rule. */
export const subscribes = (endpoint: Pick<AlertEndpoint, 'ruleIds'>, ruleId: string): boolean =>
  endpoint.ruleIds === undefined || endpoint.ruleIds.includes(ruleId);

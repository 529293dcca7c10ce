/**
 * The per-root-key rate limit: @fastify/rate-limit with its Redis store, so that every query
 * service counts against one window per root key. The library runs in manual mode
 * (createRateLimit) rather than as an onRequest hook, so that the contract's check order
 * holds: a request is rate limited only once its root key, query, permission and API passed
 * (401, 400, 403, 404 come first and cost one Redis round trip each).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { globalKeys, type RedisClient } from '@va/store';
import type { App } from '../http/app';

export interface RateLimitDeps {
  redis: RedisClient;
  prefix: string;
  /** Requests per window and root key; 0 = no limit. */
  max: number;
  windowMs: number;
}

/** Whether the request may go on; when not, the seconds until it may retry. */
export type RateCheck = (
  request: FastifyRequest,
  rootKeyHash: string,
) => Promise<{ retryAfter: number } | null>;

const rootKeyOf = new WeakMap<FastifyRequest, string>();

export async function registerRateLimit(app: App, deps: RateLimitDeps): Promise<RateCheck> {
  if (deps.max <= 0) return async () => null;
  await app.register(rateLimit, {
    global: false,
    redis: deps.redis,
    nameSpace: globalKeys(deps.prefix).rateLimitNamespace,
    max: deps.max,
    timeWindow: deps.windowMs,
    keyGenerator: (request) => rootKeyOf.get(request) ?? 'unknown',
  });
  const check = app.createRateLimit();
  return async (request, rootKeyHash) => {
    rootKeyOf.set(request, rootKeyHash);
    const limit = await check(request);
    if (limit.isAllowed || !limit.isExceeded) return null;
    return { retryAfter: Math.max(1, limit.ttlInSeconds) };
  };
}

/**
 * The rate limits: @fastify/rate-limit with its Redis store, so that every query service counts
 * against one window per root key and, inside it, one per read-token subject (docs/read-tokens.md,
 * "Limits"). The library runs in manual mode (createRateLimit) rather than as an onRequest hook, so
 * that the contract's check order holds: a request is rate limited only once its root key, query,
 * permission and API passed (401, 400, 403, 404 come first and cost one Redis round trip each).
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { globalKeys, type RedisClient } from '@va/store';
import type { App } from '../http/app';
import type { LimitOwner } from './owner';

export interface RateLimitDeps {
  redis: RedisClient;
  prefix: string;
  /** Requests per window and root key; 0 = no limit. */
  max: number;
  /** Requests per window and read-token subject, inside its root key's (subjectLimit); absent = max. */
  subjectMax?: number;
  windowMs: number;
}

/** Whether the request may go on; when not, whose window is full and the seconds until it may retry. */
export type RateCheck = (
  request: FastifyRequest,
  owner: LimitOwner,
) => Promise<{ scope: 'rootKey' | 'subject'; retryAfter: number } | null>;

/** The window a request is being checked against (the library asks for its key and max separately). */
const windowOf = new WeakMap<FastifyRequest, { key: string; max: number }>();

export async function registerRateLimit(app: App, deps: RateLimitDeps): Promise<RateCheck> {
  if (deps.max <= 0) return async () => null;
  const keys = globalKeys(deps.prefix);
  await app.register(rateLimit, {
    global: false,
    redis: deps.redis,
    nameSpace: keys.rateLimitNamespace,
    max: (request) => windowOf.get(request)?.max ?? deps.max,
    timeWindow: deps.windowMs,
    keyGenerator: (request) => windowOf.get(request)?.key ?? 'unknown',
  });
  const check = app.createRateLimit();
  const over = async (request: FastifyRequest, key: string, max: number) => {
    windowOf.set(request, { key, max });
    const limit = await check(request);
    return limit.isAllowed || !limit.isExceeded ? null : Math.max(1, limit.ttlInSeconds);
  };
  return async (request, { rootKeyHash, subject }) => {
    // The subject's window first: a request its subject may not send does not count against the
    // root key, so a flooding end user uses up their own share and nothing of the rest.
    if (subject !== null) {
      const retryAfter = await over(
        request,
        keys.rateLimitKey(rootKeyHash, subject),
        deps.subjectMax ?? deps.max,
      );
      if (retryAfter !== null) return { scope: 'subject', retryAfter };
    }
    const retryAfter = await over(request, keys.rateLimitKey(rootKeyHash), deps.max);
    return retryAfter === null ? null : { scope: 'rootKey', retryAfter };
  };
}

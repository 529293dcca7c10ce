/**
 * The query service's settings in the bench. By default they are those `npm start` gives it: the shipped
 * defaults (libs/config), or the operator's own values from the environment, which `npm start` passes on
 * too. So the per-root-key limits are on and the access log is written (LOG_LEVEL info), as users meet
 * the service. `--no-limits` is the earlier measurement: no limits, warnings only in the log.
 */
import { readEnvironment } from '@va/config';

export interface QuerySettings {
  rateLimit: number;
  rateWindowMs: number;
  maxConcurrent: number;
  logLevel: string;
}

/** The settings the query service runs with in this bench run. */
export function querySettings(limits: boolean, env: NodeJS.ProcessEnv): QuerySettings {
  const shipped = readEnvironment(env);
  return limits
    ? {
        rateLimit: shipped.QUERY_RATE_LIMIT,
        rateWindowMs: shipped.QUERY_RATE_WINDOW_MS,
        maxConcurrent: shipped.QUERY_MAX_CONCURRENT,
        logLevel: shipped.LOG_LEVEL,
      }
    : { rateLimit: 0, rateWindowMs: shipped.QUERY_RATE_WINDOW_MS, maxConcurrent: 0, logLevel: 'warn' };
}

/** The same settings as the service's environment variables (on top of the bench's serviceEnv). */
export function querySettingsEnv(s: QuerySettings): Record<string, string> {
  return {
    QUERY_RATE_LIMIT: String(s.rateLimit),
    QUERY_RATE_WINDOW_MS: String(s.rateWindowMs),
    QUERY_MAX_CONCURRENT: String(s.maxConcurrent),
    LOG_LEVEL: s.logLevel,
  };
}

/**
 * Root keys the load of one scenario rotates over, request by request. autocannon asks in a closed
 * loop, each connection far faster than one dashboard does (~1,000 requests/s); on one root key the
 * shipped rate limit would answer most of them 429, and the figures would time the limiter's refusal,
 * not the query. Spread over enough keys that none passes half its rate limit at `maxRequestsPerSecond`
 * nor QUERY_MAX_CONCURRENT at `connections`, every request still pays the limits' checks; a 429 still
 * counts as a failure. Without limits one key is enough.
 */
export function rootKeyPoolSize(
  s: QuerySettings,
  connections: number,
  maxRequestsPerSecond = 10_000,
): number {
  if (s.rateLimit === 0 && s.maxConcurrent === 0) return 1;
  const perSecond = s.rateLimit === 0 ? 0 : (s.rateLimit * 1000) / s.rateWindowMs;
  const forRate = perSecond === 0 ? 1 : Math.ceil(maxRequestsPerSecond / (perSecond / 2));
  const forConcurrency = s.maxConcurrent === 0 ? 1 : Math.ceil(connections / s.maxConcurrent) * 2;
  return Math.max(forRate, forConcurrency);
}

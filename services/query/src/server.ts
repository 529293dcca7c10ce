/**
 * The query service's HTTP server, without listening: tests inject requests into it,
 * main.ts listens. Routes: GET /v1/analytics.getVerifications, POST /v1/analytics.createReadToken,
 * GET /v1/apis.list, GET /v1/analytics.stream (Server-Sent Events: stream/),
 * /livez, /readyz, /health, /openapi.json, /docs, /dashboard/. /metrics is on an internal port (main.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { Registry } from 'prom-client';
import type { Config } from '@va/config';
import type { Logger } from '@va/runtime';
import { defineCommands, SectionCache, sumCacheStats, type RedisClient } from '@va/store';
import type { App } from './http/app';
import { registerAccessLog } from './http/access-log';
import { clientErrorHandler, errorHandler, installErrorHandling } from './http/error-handling';
import { registerCompression } from './http/compression';
import { registerMetrics, registerPoolMetrics } from './http/metrics';
import { registerOpenApi } from './http/openapi';
import { redisReadiness } from './http/readiness';
import { newRequestId } from './http/request-id';
import { authCache } from './auth/access-cache';
import { subjectLimit } from './limits/owner';
import { dashboardRoute } from './routes/dashboard';
import { alertRoutes } from './routes/v1_alerts';
import { healthRoute } from './routes/health';
import { createReadTokenRoute } from './routes/v1_analytics_createReadToken';
import { GET_VERIFICATIONS, getVerificationsRoute } from './routes/v1_analytics_getVerifications';
import { listApisRoute } from './routes/v1_apis_list';
import { registerStreams, type StreamSettings } from './stream/register';
import { DictionaryCache } from './verifications/dictionary-cache';
import { ReadPool } from './verifications/read-pool';
import { registerSectionCacheMetrics } from './verifications/section-metrics';
import { ReleaseQueue } from './limits/release-queue';

export interface ServerDeps {
  redis: RedisClient;
  config: Pick<
    Config,
    | 'keyPrefix'
    | 'maxRows'
    | 'retention'
    | 'queryMaxCost'
    | 'docsUrl'
    | 'queryTimeoutMs'
    | 'queryRateLimit'
    | 'queryRateWindowMs'
    | 'queryMaxConcurrent'
    | 'querySubjectShare'
    | 'queryWorkers'
    | 'redisUrl'
    | 'redisClusterNodes'
    | 'readTokenKeys'
  > &
    Partial<
      Pick<
        Config,
        | 'queryDictionaryCacheEntries'
        | 'querySectionCacheMb'
        | 'queryAccessLog'
        | 'queryAuthCacheMs'
        | keyof StreamSettings
      >
    >;
  /** Server clock (unix ms); defaults to Date.now. */
  now?: () => number;
  logger?: Logger;
  /** Prometheus registry for the service's metrics (main.ts serves it on the internal port); a private one by default. */
  registry?: Registry;
  /** Readiness probe of /readyz and /health; Redis answering a PING by default (http/readiness.ts). */
  ready?: () => Promise<boolean>;
  /** The built dashboard served at /dashboard/; @va/dashboard's dist by default. */
  dashboardDir?: string;
}

export async function createServer(deps: ServerDeps): Promise<App> {
  const { redis, config } = deps;
  const loggerInstance: FastifyBaseLogger | undefined = deps.logger;
  const app: App = Fastify({
    ...(loggerInstance && { loggerInstance }),
    genReqId: newRequestId,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    bodyLimit: 4096, // the only body: createReadToken's (a 255-character externalId, escaped, fits)
    clientErrorHandler: clientErrorHandler(config.docsUrl),
    // The handler returns the reply (a thenable) for setErrorHandler; here fastify expects nothing back.
    frameworkErrors: (error, request, reply) => {
      void errorHandler(config.docsUrl)(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  defineCommands(redis);
  installErrorHandling(app, config.docsUrl);
  await registerOpenApi(app, config.docsUrl);
  await registerCompression(app);
  const registry = deps.registry ?? new Registry();
  const metrics = registerMetrics(app, registry, GET_VERIFICATIONS);
  registerAccessLog(app, config.queryAccessLog ?? 1);
  healthRoute(app, deps.ready ?? redisReadiness(redis));
  // One limits setting for every route (limits/admission.ts); a slot outlives the budget a little:
  // the work stops at its next Redis call after it.
  const limits = {
    redis,
    prefix: config.keyPrefix,
    rateMax: config.queryRateLimit,
    rateSubjectMax: subjectLimit(config.queryRateLimit, config.querySubjectShare),
    windowMs: config.queryRateWindowMs,
    slotMax: config.queryMaxConcurrent,
    slotSubjectMax: subjectLimit(config.queryMaxConcurrent, config.querySubjectShare),
    slotTtlMs: config.queryTimeoutMs + 5_000,
    releases: new ReleaseQueue(redis),
  };
  // Releases still waiting go out before the connection closes (else their slots wait for the TTL).
  app.addHook('onClose', () => limits.releases.flush());
  const auth = authCache(config.queryAuthCacheMs ?? 1000);
  // One section cache per thread (main and each read worker), the budget split evenly: a
  // decoded section is typed arrays that one thread cannot lend another without copying.
  const sectionCacheBytes = Math.floor(
    ((config.querySectionCacheMb ?? 256) * 2 ** 20) / (1 + Math.max(0, config.queryWorkers)),
  );
  const sections = new SectionCache(sectionCacheBytes);
  const pool =
    config.queryWorkers > 0
      ? new ReadPool(config.queryWorkers, {
          redis: { redisUrl: config.redisUrl, redisClusterNodes: config.redisClusterNodes },
          config: {
            keyPrefix: config.keyPrefix,
            maxRows: config.maxRows,
            retention: config.retention,
            queryMaxCost: config.queryMaxCost,
          },
          sectionCacheBytes,
        })
      : undefined;
  if (pool) {
    app.addHook('onClose', () => pool.close());
    registerPoolMetrics(registry, () => pool.waiting);
  }
  registerSectionCacheMetrics(registry, () => {
    const workers = pool?.sectionCacheStats();
    return sumCacheStats(workers ? [sections.stats(), workers] : [sections.stats()]);
  });
  const dictionaries = new DictionaryCache(redis, {
    ...(config.queryDictionaryCacheEntries !== undefined && {
      maxEntries: config.queryDictionaryCacheEntries,
    }),
  });
  getVerificationsRoute(app, {
    redis,
    config,
    now: deps.now ?? Date.now,
    authCache: auth,
    dictionaries,
    sections,
    budgetMs: config.queryTimeoutMs,
    limits,
    metrics,
    pool,
  });
  createReadTokenRoute(app, { redis, config, now: deps.now ?? Date.now, authCache: auth });
  listApisRoute(app, { redis, config, now: deps.now ?? Date.now, limits, authCache: auth });
  registerStreams(app, {
    redis,
    config,
    now: deps.now ?? Date.now,
    authCache: auth,
    dictionaries,
    sections,
    limits,
    registry,
    ...(pool && { pool }),
    ...(deps.logger && { logger: deps.logger }),
  });
  alertRoutes(app, { redis, config, now: deps.now ?? Date.now, authCache: auth });
  await dashboardRoute(app, config.docsUrl, deps.dashboardDir);
  return app;
}

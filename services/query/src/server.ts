/**
 * The query service's HTTP server, without listening: tests inject requests into it,
 * main.ts listens. Routes: GET /v1/analytics.getVerifications, POST /v1/analytics.createReadToken, /health, /metrics,
 * /openapi.json, /docs.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import type { Config } from '@va/config';
import type { Logger } from '@va/runtime';
import { defineCommands } from '@va/store';
import type { App } from './http/app';
import { clientErrorHandler, errorHandler, installErrorHandling } from './http/error-handling';
import { registerMetrics } from './http/metrics';
import { registerOpenApi } from './http/openapi';
import { newRequestId } from './http/request-id';
import { healthRoute } from './routes/health';
import { createReadTokenRoute } from './routes/v1_analytics_createReadToken';
import { GET_VERIFICATIONS, getVerificationsRoute } from './routes/v1_analytics_getVerifications';
import { DictionaryCache } from './verifications/dictionary-cache';

export interface ServerDeps {
  redis: Redis;
  config: Pick<Config, 'keyPrefix' | 'maxRows' | 'retention' | 'docsUrl' | 'readTokenKeys'>;
  /** Server clock (unix ms); defaults to Date.now. */
  now?: () => number;
  logger?: Logger;
  /** Prometheus registry for the service's metrics; a private one by default. */
  registry?: Registry;
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
  registerMetrics(app, deps.registry ?? new Registry(), GET_VERIFICATIONS);
  healthRoute(app, () => redis.status === 'ready');
  getVerificationsRoute(app, {
    redis,
    config,
    now: deps.now ?? Date.now,
    dictionaries: new DictionaryCache(redis),
  });
  createReadTokenRoute(app, { redis, config, now: deps.now ?? Date.now });
  return app;
}

/**
 * GET /v1/analytics.stream wired into the server (server.ts): the hub of this process, its metrics, the
 * route, and the end of every stream when the server closes (before fastify waits for open requests).
 */
import type { Registry } from 'prom-client';
import type { Config } from '@va/config';
import type { Logger } from '@va/runtime';
import type { App } from '../http/app';
import { streamRoute, type StreamRouteDeps } from '../routes/v1_analytics_stream';
import type { ReadPool } from '../verifications/read-pool';
import { StreamHub } from './hub';
import { registerStreamMetrics } from './metrics';
import { readStreamAnswer } from './read';
import { queryAt } from './stream-query';

export type StreamSettings = Pick<
  Config,
  'queryStreamMax' | 'queryStreamMaxPerKey' | 'queryStreamRefreshMs' | 'queryStreamHeartbeatMs'
>;

/** The defaults of libs/config, for servers built with a partial config (tests, the bench). */
const DEFAULTS: StreamSettings = {
  queryStreamMax: 10_000,
  queryStreamMaxPerKey: 100,
  queryStreamRefreshMs: 10_000,
  queryStreamHeartbeatMs: 15_000,
};

export interface StreamsDeps extends Omit<StreamRouteDeps, 'hub' | 'metrics' | 'docsUrl'> {
  config: StreamRouteDeps['config'] & Pick<Config, 'docsUrl' | 'queryTimeoutMs'> & Partial<StreamSettings>;
  registry: Registry;
  pool?: ReadPool;
  logger?: Logger;
}

export function registerStreams(app: App, deps: StreamsDeps): StreamHub {
  const { config } = deps;
  const settings = { ...DEFAULTS, ...definedOf(config) };
  // The gauges read the hub, made just below (collect runs only at a scrape).
  const metrics = registerStreamMetrics(deps.registry, {
    open: () => hub.openStreams,
    queries: () => hub.queries,
  });
  const readDeps = { ...deps, budgetMs: config.queryTimeoutMs };
  const hub: StreamHub = new StreamHub({
    redis: deps.redis,
    prefix: config.keyPrefix,
    read: (query) => {
      const now = deps.now();
      return readStreamAnswer(readDeps, queryAt(query, now), now);
    },
    now: Date.now,
    max: settings.queryStreamMax,
    maxPerKey: settings.queryStreamMaxPerKey,
    refreshMs: settings.queryStreamRefreshMs,
    heartbeatMs: settings.queryStreamHeartbeatMs,
    metrics,
    ...(deps.logger && { logger: deps.logger }),
  });
  // preClose: before fastify closes the server and waits for open requests (a stream never ends by itself).
  app.addHook('preClose', async () => hub.close());
  streamRoute(app, { ...deps, hub, metrics, docsUrl: config.docsUrl });
  return hub;
}

function definedOf(config: Partial<StreamSettings>): Partial<StreamSettings> {
  return Object.fromEntries(Object.entries(config).filter(([k, v]) => k in DEFAULTS && v !== undefined));
}

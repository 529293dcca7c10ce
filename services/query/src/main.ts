/**
 * The query service process: config, Redis, listen on PORT (the API, the dashboard, the probes) and on
 * QUERY_METRICS_PORT (GET /metrics and the probes, for the cluster's eyes only); SIGTERM/SIGINT close it cleanly.
 */
import { clockOf, loadConfig } from '@va/config';
import { createLogger, createRegistry, exitFatalOnUncaught, onShutdown, serveMetrics } from '@va/runtime';
import { connectRedis } from '@va/store';
import { redisReadiness } from './http/readiness';
import { createServer } from './server';

// First: a bad setting (loadConfig throws) or a failed listen is one fatal JSON line, not a bare stack trace.
const startUp = exitFatalOnUncaught('query');
const config = loadConfig();
const logger = createLogger('query', config.logLevel, { buffered: true });
const redis = connectRedis(config, { maxRetriesPerRequest: 2, connectionName: 'va-query' });
let lastRedisError = 0;
redis.on('error', (err: Error) => {
  if (Date.now() - lastRedisError < 5_000) return; // one line per 5 s while Redis is away
  lastRedisError = Date.now();
  logger.warn({ err: err.message }, 'redis connection error');
});

const registry = createRegistry('query');
const ready = redisReadiness(redis);
const app = await createServer({ redis, config, logger, registry, ready, now: clockOf(config) });
const internal = await serveMetrics(registry, config.queryMetricsPort, ready, config.host);
onShutdown(logger, async () => {
  await Promise.all([app.close(), new Promise<void>((resolve) => internal.close(() => resolve()))]);
  await redis.quit().catch(() => redis.disconnect());
});
await app.listen({ port: config.port, host: config.host });
logger.info({ port: config.port, metricsPort: config.queryMetricsPort }, 'query service listening');
startUp.started();

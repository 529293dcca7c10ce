/** The query service process: config, Redis, listen; SIGTERM/SIGINT close it cleanly. */
import { clockOf, loadConfig } from '@va/config';
import { createLogger, createRegistry, onShutdown } from '@va/runtime';
import { connectRedis } from '@va/store';
import { createServer } from './server';

const config = loadConfig();
const logger = createLogger('query', config.logLevel);
const redis = connectRedis(config, { maxRetriesPerRequest: 2, connectionName: 'va-query' });
let lastRedisError = 0;
redis.on('error', (err: Error) => {
  if (Date.now() - lastRedisError < 5_000) return; // one line per 5 s while Redis is away
  lastRedisError = Date.now();
  logger.warn({ err: err.message }, 'redis connection error');
});

const app = await createServer({
  redis,
  config,
  logger,
  registry: createRegistry('query'),
  now: clockOf(config),
});
onShutdown(logger, async () => {
  await app.close();
  await redis.quit().catch(() => redis.disconnect());
});
await app.listen({ port: config.port, host: config.host });
logger.info({ port: config.port }, 'query service listening');

/**
 * The ingest worker process: `tsx services/ingest/src/main.ts`. Configuration from the
 * environment (libs/config), JSON logs on stdout, GET /metrics and /health on
 * config.ingestMetricsPort. SIGTERM/SIGINT: finish the batch in flight (its progress is stored
 * with it), leave the consumer group, disconnect, exit 0.
 */
import { loadConfig, loadIngestSettings } from '@va/config';
import { createLogger, createRegistry, exitFatal, onShutdown, serveMetrics } from '@va/runtime';
import { connectRedis } from '@va/store';
import { workerRedisOptions } from './adapters/redis-options';
import { createIngestMetrics } from './metrics';
import { untilRedisAnswers } from './until-redis-answers';
import { createIngestWorker } from './worker';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('ingest', config.logLevel);
  const registry = createRegistry('ingest');
  const metrics = createIngestMetrics(registry);
  const settings = loadIngestSettings();
  const redis = connectRedis(config, workerRedisOptions(settings));
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis'));
  await untilRedisAnswers(
    'connect',
    async () => {
      try {
        await redis.connect();
      } catch (err) {
        redis.disconnect();
        throw err;
      }
    },
    logger,
  );

  const worker = createIngestWorker({
    config,
    redis,
    logger,
    metrics,
    settings,
    onFatal: () => process.exit(1),
  });
  const server = await serveMetrics(registry, config.ingestMetricsPort, () => worker.healthy(), config.host);
  onShutdown(logger, async () => {
    await worker.stop();
    redis.disconnect();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await worker.start();
  logger.info(
    { topics: [config.topic, config.backfillTopic], group: config.consumerGroup },
    'ingest worker started',
  );
}

// A bad setting or an unreachable dependency at start-up: one fatal JSON line like every other line.
main().catch((err: unknown) => exitFatal('ingest', 'start-up failed', err));

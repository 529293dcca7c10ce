/**
 * The compactor process, which also delivers the webhooks of usage alerts (alerts/delivery.ts):
 * `tsx services/compactor/src/main.ts`. Configuration from the
 * environment (libs/config), JSON logs on stdout, GET /metrics and /health on
 * config.compactorMetricsPort. SIGTERM/SIGINT: stop taking jobs, let running ones stop at
 * their next hour, close the worker and the scheduler's queue, exit 0.
 */
import { clockOf, loadCompactorSettings, loadConfig } from '@va/config';
import { createLogger, createRegistry, exitFatal, onShutdown, serveMetrics } from '@va/runtime';
import { createAlertDelivery } from './alerts/delivery';
import { createCompactor } from './compactor';
import { createCompactorMetrics } from './metrics';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('compactor', config.logLevel);
  const registry = createRegistry('compactor');
  const compactor = createCompactor({
    config,
    logger,
    metrics: createCompactorMetrics(registry),
    settings: loadCompactorSettings(),
    now: clockOf(config),
  });
  // Webhooks carry the real time (receivers refuse a timestamp minutes away), whatever the test clock.
  const delivery = createAlertDelivery({ config, logger, now: () => Date.now(), registry });
  const server = await serveMetrics(
    registry,
    config.compactorMetricsPort,
    () => compactor.healthy() && delivery.healthy(),
    config.host,
  );
  onShutdown(logger, async () => {
    await delivery.stop();
    await compactor.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await compactor.start();
  await delivery.start();
  logger.info(
    {
      everyMs: config.compactionEveryMs,
      graceMs: config.compactionGraceMs,
      port: config.compactorMetricsPort,
    },
    'compactor started',
  );
}

// A bad setting or an unreachable dependency at start-up: one fatal JSON line like every other line.
main().catch((err: unknown) => exitFatal('compactor', 'start-up failed', err));

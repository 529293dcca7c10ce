import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits 0 (1 if stopping failed or took
 * longer than `timeoutMs`). A second signal while stopping exits at once.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs = 30_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'stop timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** kafkajs log lines through the service's pino logger (structured, one stream). */
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '@va/runtime';

export function pinoLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () =>
    ({ level, log }) => {
      const { message, ...extra } = log;
      if (level === logLevel.ERROR || level === logLevel.NOTHING) child.error(extra, message);
      else if (level === logLevel.WARN) child.warn(extra, message);
      else if (level === logLevel.INFO) child.info(extra, message);
      else child.debug(extra, message);
    };
}

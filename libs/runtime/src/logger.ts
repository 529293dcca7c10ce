import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout, one logger per service (the `service` field tells them apart). */
/** `level`: Config.logLevel (LOG_LEVEL, read by libs/config like every variable). */
export function createLogger(service: string, level: string): Logger {
  return pino({ level, base: { service, pid: process.pid } });
}

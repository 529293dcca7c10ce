import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs on stdout, one logger per service (the `service` field tells them apart). */
export function createLogger(service: string, level = process.env.LOG_LEVEL || 'info'): Logger {
  return pino({ level, base: { service, pid: process.pid } });
}

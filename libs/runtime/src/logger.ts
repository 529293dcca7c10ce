import { isMainThread } from 'node:worker_threads';
import { destination, pino, type Logger } from 'pino';

export type { Logger };

/**
 * Lines are buffered up to this many bytes before one write. A synchronous write per line cost the query service
 * about a tenth of a light query's CPU (its access log writes one line per request): see docs/deploy.md "The query service's log is buffered".
 */
const BUFFER_BYTES = 4096;
/** ...and written at least this often, so that a quiet service's lines are never held longer. */
const FLUSH_MS = 500;

/** The buffered streams of this process, flushed synchronously before a fatal line (fatal.ts). */
const buffered = new Set<ReturnType<typeof destination>>();

/**
 * Structured JSON logs on stdout, one logger per service (the `service` field tells them apart).
 * `level`: Config.logLevel (LOG_LEVEL, read by libs/config like every variable). With `buffered` (the query
 * service: one access-log line per request) the lines are kept up to BUFFER_BYTES and written together, at least
 * every FLUSH_MS and when the process exits; else, and on a worker thread, each line is written at once.
 *
 * The writes are synchronous (one per BUFFER_BYTES, not one per line). pino's asynchronous destination lost the
 * lines' order at exit: a write still in flight when `process.exit` flushed the rest synchronously reached the
 * pipe after it. A synchronous destination gets no exit flush from pino, hence the `exit` listener.
 */
export function createLogger(service: string, level: string, { buffered: buffer = false } = {}): Logger {
  const options = { level, base: { service, pid: process.pid } };
  if (!buffer || !isMainThread) return pino(options);
  const stream = destination({ dest: 1, sync: true, minLength: BUFFER_BYTES });
  if (buffered.size === 0) process.on('exit', flushLogsSync);
  buffered.add(stream);
  const timer = setInterval(() => stream.flush(), FLUSH_MS).unref();
  stream.on('close', () => {
    clearInterval(timer);
    buffered.delete(stream);
    if (buffered.size === 0) process.off('exit', flushLogsSync);
  });
  return pino(options, stream);
}
/** Writes out every buffered line now (before a fatal line, so that lines keep their order). */
export function flushLogsSync(): void {
  for (const stream of buffered) {
    try {
      stream.flushSync();
    } catch {
      // Closed, or not open yet: nothing of it to write.
    }
  }
}

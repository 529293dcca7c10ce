/**
 * A service that cannot go on (a bad setting at start-up, an error nothing caught) says so like every other
 * line it writes: one pino JSON line on stdout, level fatal, the error serialized (type, message, stack),
 * so that a log pipeline sees it. Someone starting the service by hand in a terminal also gets one plain
 * line on stderr, where a shell shows it even when JSON scrolls by; a pipe or a log collector does not.
 */
import { destination, pino } from 'pino';
import { flushLogsSync } from './logger';

/** The one-line summary: the service, what happened and the error's first line. Pure. */
export function fatalSummary(service: string, msg: string, err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const first = text.split('\n').find((line) => line.trim() !== '') ?? '(no message)';
  return `${service}: ${msg}: ${first.trim()}`;
}

/** Where the report goes; the process's own streams unless a test passes others. */
export interface FatalOutput {
  /** The JSON line (fd 1: written synchronously, so it is out before the process exits). */
  stdoutFd: number;
  stdoutIsTTY: boolean;
  stderr: { write(text: string): unknown };
}

const processOutput = (): FatalOutput => ({
  stdoutFd: 1,
  stdoutIsTTY: process.stdout.isTTY === true,
  stderr: process.stderr,
});

/** Writes the fatal line (and, on a terminal, the summary); the caller exits. */
export function reportFatal(service: string, msg: string, err: unknown, output = processOutput()): void {
  // The service's buffered lines first: they happened before this one.
  flushLogsSync();
  const logger = pino(
    { base: { service, pid: process.pid } },
    destination({ dest: output.stdoutFd, sync: true }),
  );
  logger.fatal({ err: err instanceof Error ? err : new Error(String(err)) }, msg);
  if (output.stdoutIsTTY) output.stderr.write(`${fatalSummary(service, msg, err)}\n`);
}

/** reportFatal, then exit 1. */
export function exitFatal(service: string, msg: string, err: unknown): never {
  reportFatal(service, msg, err);
  process.exit(1);
}

/**
 * Reports what nothing caught (an uncaught exception or unhandled rejection, a rejected top-level await of a
 * start-up included) with exitFatal. Call it first thing in a service's entry module, and `started()` once
 * the service serves: until then the line says "start-up failed".
 */
export function exitFatalOnUncaught(service: string): { started(): void } {
  let starting = true;
  process.on('uncaughtException', (err, origin) =>
    exitFatal(
      service,
      starting
        ? 'start-up failed'
        : origin === 'unhandledRejection'
          ? 'unhandled rejection'
          : 'uncaught exception',
      err,
    ),
  );
  return { started: () => void (starting = false) };
}

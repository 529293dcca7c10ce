/**
 * The time budget of a request: an AbortSignal that fires after `ms` (or when `cancel` fires: the
 * client went away), and a race that answers the request at that moment, whatever the work is
 * waiting on. The work itself stops at its next check of the signal (every Redis call of the read
 * path checks it first; a worker of the pool is stopped).
 */
import { ApiError } from './api-error';

export const timeoutError = (ms: number): ApiError =>
  new ApiError(
    'query_timeout',
    `The query did not finish within its time budget of ${ms} ms and was stopped. Narrow the range, ` +
      'group by fewer dimensions or set a smaller limit, or retry later.',
  );

/** The client closed the connection before its answer was sent: nobody is left to read it. */
export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection before the answer was sent');
  }
}

/**
 * Runs `work` with a signal that fires after `ms`, or when `onCancel`'s `abort` is called (the client
 * went away): one AbortController per request, whose abort also answers the request at once.
 */
export async function withBudget<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
  onCancel?: (abort: (reason: Error) => void) => void,
): Promise<T> {
  const controller = new AbortController();
  const signal = controller.signal;
  let fail: ((reason: Error) => void) | undefined;
  const abort = (reason: Error) => {
    if (signal.aborted) return;
    controller.abort(reason);
    fail?.(reason);
  };
  const timer = setTimeout(() => abort(timeoutError(ms)), ms);
  onCancel?.(abort);
  const aborted = new Promise<never>((_, reject) => {
    fail = reject;
    if (signal.aborted) reject(signal.reason as Error);
  });
  const running = work(signal);
  // The work rejects with the same reason once it notices; that rejection is already answered.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timer);
    fail = undefined;
  }
}

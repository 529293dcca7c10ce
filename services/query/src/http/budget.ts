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

export async function withBudget<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
  cancel?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError(ms)), ms);
  const signal = controller.signal;
  const onCancel = () => controller.abort(cancel?.reason);
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener('abort', onCancel, { once: true });
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const running = work(signal);
  // The work rejects with the same reason once it notices; that rejection is already answered.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, aborted]);
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener('abort', onCancel);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

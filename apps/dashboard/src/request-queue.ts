/**
 * One queue for every request the page sends: at most `width` in flight, the rest wait in order.
 * The service turns away a root key's queries beyond QUERY_MAX_CONCURRENT (4 by default) and an end
 * user's read-token queries beyond their share of it (QUERY_SUBJECT_SHARE 0.5: 2) with 429; a page
 * that sends its five panels' queries at once would meet that on its first paint and wait out the
 * Retry-After. Width 2 fits the smaller limit, and leaves room for a second tab of the same root key.
 */
export const PAGE_REQUEST_WIDTH = 2;

export interface RequestQueue {
  /** Runs `task` when one of the queue's places is free; settles as the task does. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks started and not settled yet. */
  readonly inFlight: number;
}

export function createRequestQueue(width: number = PAGE_REQUEST_WIDTH): RequestQueue {
  if (!Number.isInteger(width) || width < 1) throw new RangeError(`width must be >= 1, got ${width}`);
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  const next = () => {
    if (inFlight >= width) return;
    const start = waiting.shift();
    if (start) start();
  };
  return {
    get inFlight() {
      return inFlight;
    },
    run<T>(task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        waiting.push(() => {
          inFlight++;
          // A task that throws synchronously settles like one that rejects: its place is given back.
          Promise.resolve()
            .then(task)
            .then(resolve, reject)
            .finally(() => {
              inFlight--;
              next();
            });
        });
        next();
      });
    },
  };
}

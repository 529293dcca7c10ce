/**
 * The event-loop delay over a window, for the metrics of one scrape (metrics.ts).
 *
 * monitorEventLoopDelay records the time between two of its timer's wake-ups, not the delay
 * past the timer: an idle loop reads the resolution itself. Sampled every 2 ms, a stall of s ms
 * reads between s and s + 2, fine enough for the 10 ms rule (docs/query-isolation.md) while
 * 500 wake-ups a second cost next to nothing; the default 10 ms would make an idle loop's p99
 * read 10 ms.
 */
import type { Histogram } from 'node:perf_hooks';

export const LOOP_DELAY_RESOLUTION_MS = 2;

export type LoopDelayStat = 'p99' | 'max';

export interface LoopDelayWindow {
  /** The statistic (ns) of the current window; a statistic read again starts a new window. */
  read(stat: LoopDelayStat): number;
}

/**
 * Both statistics of one scrape come from the same window, whichever gauge is collected first:
 * the histogram is read and reset when a statistic is asked that this window has already given.
 */
export function loopDelayWindow(histogram: Histogram & { reset(): void }): LoopDelayWindow {
  let snapshot: Record<LoopDelayStat, number> = { p99: 0, max: 0 };
  let unread = new Set<LoopDelayStat>();
  return {
    read(stat) {
      if (!unread.has(stat)) {
        // An empty histogram reads max 0 but percentile 0 too; no samples: no delay seen.
        snapshot =
          histogram.count === 0 ? { p99: 0, max: 0 } : { p99: histogram.percentile(99), max: histogram.max };
        histogram.reset();
        unread = new Set(['p99', 'max']);
      }
      unread.delete(stat);
      return snapshot[stat];
    },
  };
}

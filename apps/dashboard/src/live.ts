/**
 * Live updates (docs/dashboard.md "Near-real-time"): the page keeps one stream open
 * (GET /v1/analytics.stream, through @va/client) on its totals query without an end, and refreshes when
 * the stream's answer changes. One stream per tab, however many queries the page asks: the refresh
 * that follows asks them all with one `start` and `end`, so the numbers on the screen keep agreeing with
 * each other. When the service offers no stream (an older version, streams off or full, a refusal), or
 * the stream ends for good, the page polls (refresh.ts).
 */
import type { VerificationsQuery } from '@va/contracts';

export type LiveMode = 'connecting' | 'stream' | 'polling';

/** What live updates need of @va/client's AnalyticsClient. */
export interface StreamSource {
  streamVerifications(
    query: VerificationsQuery,
    options: { signal: AbortSignal },
  ): AsyncIterable<{ id: string; datapoints: { total: number }[] }>;
}

export interface LiveHandlers {
  /** A new answer: `total` is its total; the first one after opening too (the page compares). */
  onAnswer(total: number, first: boolean): void;
  onMode(mode: LiveMode): void;
  /** The stream failed or ended for good (the page polls meanwhile); 401 means signed out. */
  onError(error: unknown): void;
}

export class LiveUpdates {
  private controller: AbortController | undefined;
  private key: string | undefined;

  constructor(private readonly handlers: LiveHandlers) {}

  /**
   * Follows the query unless it is followed already under the same key (the view and credential it
   * stands for: a refresh of the same view keeps its stream).
   */
  follow(source: StreamSource, query: VerificationsQuery, key: string): void {
    if (key === this.key && this.controller) return;
    this.stop();
    const controller = new AbortController();
    this.controller = controller;
    this.key = key;
    this.handlers.onMode('connecting');
    void (async () => {
      let first = true;
      try {
        for await (const answer of source.streamVerifications(query, { signal: controller.signal })) {
          if (controller.signal.aborted) return;
          if (first) this.handlers.onMode('stream');
          this.handlers.onAnswer(answer.datapoints[0]?.total ?? 0, first);
          first = false;
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        this.handlers.onError(error);
      }
      if (controller.signal.aborted) return;
      if (this.controller === controller) this.controller = undefined;
      this.handlers.onMode('polling');
    })();
  }

  stop(): void {
    this.controller?.abort();
    this.controller = undefined;
    this.key = undefined;
  }
}

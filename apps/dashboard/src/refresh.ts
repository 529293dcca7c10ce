/**
 * The auto-refresh loop: counts down once a second (the page shows the countdown), runs the refresh at 0,
 * then starts over; pausable, and never runs two refreshes at once. The timer functions are injected so
 * the loop can be unit-tested without waiting.
 *
 * Live (the service's stream is open: live.ts): the stream says when the data changed (the page then
 * refreshes at once), so the countdown only moves the range forward, every LIVE_INTERVAL_SECONDS at the
 * most often (a "last hour" view drops the events that age out of it).
 */
export interface RefreshStatus {
  intervalSeconds: number;
  remainingSeconds: number;
  paused: boolean;
  running: boolean;
  /** The stream is open: refreshes follow it, the countdown is the slow one. */
  live: boolean;
}

/** The countdown while live: the longest interval the page offers. */
export const LIVE_INTERVAL_SECONDS = 300;

export interface Ticker {
  every(ms: number, fn: () => void): () => void;
}

export const browserTicker: Ticker = {
  every(ms, fn) {
    const id = setInterval(fn, ms);
    return () => clearInterval(id);
  },
};

export class RefreshLoop {
  private status: RefreshStatus;
  private stopTicking: (() => void) | undefined;
  /** A refresh was asked for while one ran (e.g. the filters changed): run again when it ends. */
  private again = false;

  constructor(
    private readonly refresh: () => Promise<void>,
    private readonly onStatus: (status: RefreshStatus) => void,
    intervalSeconds: number,
    private readonly ticker: Ticker = browserTicker,
  ) {
    this.status = {
      intervalSeconds,
      remainingSeconds: intervalSeconds,
      paused: false,
      running: false,
      live: false,
    };
  }

  get paused(): boolean {
    return this.status.paused;
  }

  start(): void {
    this.stopTicking ??= this.ticker.every(1000, () => this.tick());
    void this.now();
  }

  stop(): void {
    this.stopTicking?.();
    this.stopTicking = undefined;
  }

  setInterval(seconds: number): void {
    this.update({ intervalSeconds: seconds });
    this.update({ remainingSeconds: Math.min(this.status.remainingSeconds, this.countdown()) });
  }

  setPaused(paused: boolean): void {
    this.update({ paused });
  }

  /** The stream opened (true) or is gone (false: the page polls at its interval again). */
  setLive(live: boolean): void {
    if (live === this.status.live) return;
    this.update({ live, remainingSeconds: live ? this.countdown(live) : this.status.intervalSeconds });
  }

  /** Seconds from one refresh to the next by the countdown. */
  private countdown(live = this.status.live): number {
    return live ? Math.max(this.status.intervalSeconds, LIVE_INTERVAL_SECONDS) : this.status.intervalSeconds;
  }

  /** Refreshes at once (the countdown restarts when it is done); once more after a running one ends. */
  async now(): Promise<void> {
    if (this.status.running) {
      this.again = true;
      return;
    }
    this.update({ running: true });
    try {
      do {
        this.again = false;
        await this.refresh();
      } while (this.again);
    } finally {
      this.update({ running: false, remainingSeconds: this.countdown() });
    }
  }

  private tick(): void {
    if (this.status.paused || this.status.running) return;
    if (this.status.remainingSeconds <= 1) void this.now();
    else this.update({ remainingSeconds: this.status.remainingSeconds - 1 });
  }

  private update(change: Partial<RefreshStatus>): void {
    this.status = { ...this.status, ...change };
    this.onStatus(this.status);
  }
}

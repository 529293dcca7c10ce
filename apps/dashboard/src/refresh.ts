/**
 * The auto-refresh loop: counts down once a second (the page shows the countdown), runs the refresh at 0,
 * then starts over; pausable, and never runs two refreshes at once. The timer functions are injected so
 * the loop can be unit-tested without waiting.
 */
export interface RefreshStatus {
  intervalSeconds: number;
  remainingSeconds: number;
  paused: boolean;
  running: boolean;
}

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
    this.status = { intervalSeconds, remainingSeconds: intervalSeconds, paused: false, running: false };
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
    this.update({
      intervalSeconds: seconds,
      remainingSeconds: Math.min(this.status.remainingSeconds, seconds),
    });
  }

  setPaused(paused: boolean): void {
    this.update({ paused });
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
      this.update({ running: false, remainingSeconds: this.status.intervalSeconds });
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

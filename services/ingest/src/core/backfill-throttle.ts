/**
 * Live before backfill (pure): while the live partitions of this worker are more than `pauseLag`
 * messages behind in total, the backfill topic is paused, and resumed below `resumeLag`.
 */
export type ThrottleAction = 'pause' | 'resume' | undefined;

export class BackfillThrottle {
  private readonly lags = new Map<number, number>();
  private paused = false;

  constructor(
    private readonly pauseLag: number,
    private readonly resumeLag: number,
  ) {}

  get isPaused(): boolean {
    return this.paused;
  }

  /** The lag of a live partition after a commit; says whether to pause or resume the backfill. */
  observe(partition: number, lag: number): { action: ThrottleAction; total: number } {
    this.lags.set(partition, lag);
    let total = 0;
    for (const l of this.lags.values()) total += l;
    if (!this.paused && total > this.pauseLag) {
      this.paused = true;
      return { action: 'pause', total };
    }
    if (this.paused && total < this.resumeLag) {
      this.paused = false;
      return { action: 'resume', total };
    }
    return { action: undefined, total };
  }

  /** A new assignment: lags start over; 'resume' when the backfill was paused. */
  reset(): ThrottleAction {
    this.lags.clear();
    if (!this.paused) return undefined;
    this.paused = false;
    return 'resume';
  }
}

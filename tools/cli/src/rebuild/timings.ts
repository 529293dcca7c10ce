/**
 * How long each phase of a rebuild took (pure): printed when it is done, as text or, with --json, as
 * one JSON object (the bench's `rebuild` phase reads it). Phases as docs/rebuild.md names them:
 * copy (the dictionaries, and --since's carried buckets), replay (compaction of the empty g', the
 * replay process's start, the replay until every partition of g' holds what g holds), catch-up (the
 * compaction of g' and the switch's checks until g' is ahead of the live workers), switch (the
 * retirements and `<p>:gen`), cleanup (the replay process's stop, the old generation's deletion).
 */
export const REBUILD_PHASES = ['copy', 'replay', 'catchUp', 'switch', 'cleanup'] as const;
export type RebuildPhase = (typeof REBUILD_PHASES)[number];

export interface RebuildTimings {
  /** Seconds per phase this run went through (a resumed run skips the earlier ones). */
  seconds: Partial<Record<RebuildPhase, number>>;
  /** Seconds from this run's start to the switch (null: it did not switch). */
  toSwitch: number | null;
  /** Records of the replayed topics g' holds, from the replay's start offsets (each one event). */
  records: number;
}

/** Marks phase boundaries on a clock; what each phase took is the time to the next mark. */
export class PhaseClock {
  private readonly ms: Partial<Record<RebuildPhase, number>> = {};
  private readonly startedAt: number;
  private current: { phase: RebuildPhase; at: number } | undefined;
  private switchedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  /** Ends the phase running (if any) and starts `phase`. */
  begin(phase: RebuildPhase): void {
    this.end();
    this.current = { phase, at: this.now() };
  }

  end(): void {
    if (!this.current) return;
    const { phase, at } = this.current;
    this.ms[phase] = (this.ms[phase] ?? 0) + (this.now() - at);
    if (phase === 'switch') this.switchedAt = this.now();
    this.current = undefined;
  }

  timings(records: number): RebuildTimings {
    this.end();
    const toSwitch = this.switchedAt === undefined ? null : (this.switchedAt - this.startedAt) / 1000;
    const seconds = Object.fromEntries(Object.entries(this.ms).map(([phase, ms]) => [phase, ms / 1000]));
    return { seconds, toSwitch, records };
  }
}

const LABELS: Record<RebuildPhase, string> = {
  copy: 'copy',
  replay: 'replay',
  catchUp: 'catch-up',
  switch: 'switch',
  cleanup: 'cleanup',
};

/** Records per second from this run's start to the switch (null when it did not switch or took no time). */
export const recordsPerSecond = (t: RebuildTimings): number | null =>
  t.toSwitch === null || t.toSwitch <= 0 ? null : t.records / t.toSwitch;

export function timingsLine(t: RebuildTimings, format: 'json' | 'text'): string {
  const rate = recordsPerSecond(t);
  if (format === 'json') {
    return JSON.stringify({
      rebuild: 'timings',
      seconds: t.seconds,
      toSwitchSeconds: t.toSwitch,
      records: t.records,
      eventsPerSecond: rate === null ? null : Math.round(rate),
    });
  }
  const phases = REBUILD_PHASES.filter((p) => t.seconds[p] !== undefined).map(
    (p) => `${LABELS[p]} ${t.seconds[p]!.toFixed(1)} s`,
  );
  const toSwitch =
    t.toSwitch === null
      ? ''
      : `; start to switch ${t.toSwitch.toFixed(1)} s for ${t.records} records` +
        (rate === null ? '' : ` (${Math.round(rate)} events/s)`);
  return `timings: ${phases.join(', ')}${toSwitch}`;
}

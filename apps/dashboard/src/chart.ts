/**
 * The stacked bar chart of verifications over time (uPlot). uPlot has no stacking of its own: each outcome is
 * drawn as a bar from 0 to its running sum, the highest sums first, so what shows of each bar is that
 * outcome's own count. The hover line reads the raw counts, not the sums.
 */
import uPlot from 'uplot';
import type { Granularity, OutcomeField } from '@va/contracts';
import { OUTCOME_FIELDS } from '@va/contracts/outcomes';
import type { DashboardDebug } from './debug';
import { axisLabel, formatSlice, tickSlices } from './chart-labels';
import { OUTCOME_STYLE } from './outcome-style';
import { stack, type Series } from './series';

// The stack goes in the contract's order, bottom first; uPlot draws the highest sums first.
const TOP_FIRST = [...OUTCOME_FIELDS].reverse();

function padded(times: ArrayLike<number>, min: number, max: number): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [min, max]; // no data yet
  const step = times.length > 1 ? (max - min) / (times.length - 1) : 3600;
  return [min - step / 2, max + step / 2];
}

export class StackedChart {
  private readonly plot: uPlot;
  private series: Series | undefined;
  private granularity: Granularity = 'hour';

  constructor(
    container: HTMLElement,
    private readonly hover: HTMLElement,
  ) {
    const bars = uPlot.paths.bars!({ size: [0.8, 64], gap: 1 });
    this.plot = new uPlot(
      {
        width: container.clientWidth || 800,
        height: 280,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { points: { show: false }, drag: { x: false, y: false } },
        scales: {
          // Half a slice of room on both sides, so the first and last bars are whole.
          x: { time: true, range: (u, min, max) => padded(u.data[0], min, max) },
          y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
        },
        axes: [
          {
            splits: (u) => tickSlices(Array.from(u.data[0]), this.granularity),
            values: (_u, splits) => splits.map((x) => axisLabel(x, this.granularity)),
          },
          { size: 56 },
        ],
        series: [
          {},
          ...TOP_FIRST.map((o) => ({
            label: OUTCOME_STYLE[o].label,
            fill: OUTCOME_STYLE[o].color,
            stroke: OUTCOME_STYLE[o].color,
            width: 0,
            paths: bars,
            points: { show: false },
          })),
        ],
        hooks: { setCursor: [(u) => this.showHover(u.cursor.idx)] },
      },
      [[]],
      container,
    );
    new ResizeObserver(() => this.plot.setSize({ width: container.clientWidth, height: 280 })).observe(
      container,
    );
  }

  /** Draws the series; returns what uPlot now holds (for window.__dashboard). */
  update(series: Series, granularity: Granularity): DashboardDebug['chart'] {
    this.series = series;
    this.granularity = granularity;
    const sums = stack(series);
    this.plot.setData([series.time, ...TOP_FIRST.map((o) => sums[OUTCOME_FIELDS.indexOf(o)] ?? [])]);
    this.showHover(null);
    const [time, ...bars] = this.plot.data as unknown as number[][];
    return {
      time: [...(time ?? [])],
      stacked: Object.fromEntries(TOP_FIRST.map((o, i) => [o, [...(bars[i] ?? [])]])) as Record<
        OutcomeField,
        number[]
      >,
    };
  }

  private showHover(idx: number | null | undefined): void {
    const s = this.series;
    if (!s || idx === null || idx === undefined || s.time[idx] === undefined) {
      this.hover.textContent = 'Hover the chart for the counts of a slice.';
      return;
    }
    const parts = OUTCOME_FIELDS.filter((o) => (s.outcomes[o][idx] ?? 0) > 0).map(
      (o) => `${OUTCOME_STYLE[o].label} ${s.outcomes[o][idx]}`,
    );
    this.hover.textContent = `${formatSlice(s.time[idx], this.granularity)}: total ${s.total[idx]}${
      parts.length ? ` (${parts.join(', ')})` : ''
    }`;
  }
}

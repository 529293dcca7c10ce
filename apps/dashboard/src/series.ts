/**
 * From API rows to what the page draws: per-outcome series over time, totals, and "top" rows with their
 * share of the total. Pure.
 */
import type { Datapoint, OutcomeField } from '@va/contracts';
// The contract's outcome list itself: this entry point holds no schema, so the page's bundle stays free of typebox.
import { OUTCOME_FIELDS, outcomeCounts } from '@va/contracts/outcomes';

export type Counts = Record<OutcomeField | 'total', number>;

export interface Series {
  /** Slice starts, unix seconds (uPlot's x unit). */
  time: number[];
  /** One array per outcome, aligned with time. */
  outcomes: Record<OutcomeField, number[]>;
  total: number[];
}

export function toSeries(rows: readonly Datapoint[]): Series {
  const outcomes = Object.fromEntries(OUTCOME_FIELDS.map((o) => [o, rows.map((r) => r[o])])) as Record<
    OutcomeField,
    number[]
  >;
  return { time: rows.map((r) => (r.time ?? 0) / 1000), outcomes, total: rows.map((r) => r.total) };
}

/**
 * Running sums bottom-up (valid, valid+notFound, …): a stacked bar chart draws outcome i as a bar from 0
 * to stack[i], the higher sums first, so each visible band is that outcome's own count.
 */
export function stack(series: Series): number[][] {
  const sums = series.time.map(() => 0);
  return OUTCOME_FIELDS.map((o) => series.outcomes[o].map((v, i) => (sums[i] = (sums[i] ?? 0) + v)));
}

export function toCounts(row: Datapoint | undefined): Counts {
  if (!row) return { total: 0, ...outcomeCounts() };
  return { total: row.total, ...Object.fromEntries(OUTCOME_FIELDS.map((o) => [o, row[o]])) } as Counts;
}

export interface TopRow {
  label: string;
  total: number;
  /** total / grand total, 0..1 (0 when the grand total is 0). */
  share: number;
}

function labelOf(row: Datapoint): string {
  if (row.keyId !== undefined) return row.keyId;
  if (row.identity !== undefined) return `${row.identity.externalId} (${row.identity.id})`;
  if (row.tag !== undefined) return row.tag;
  if (row.region !== undefined) return row.region;
  return '';
}

/**
 * Rows of a top-N answer with their share of the range's total. Shares of tags can add up to more than
 * 100 % (an event with two tags counts for both), shares of identities to less (events without one).
 */
export function topRows(rows: readonly Datapoint[], grandTotal: number): TopRow[] {
  return rows.map((r) => ({
    label: labelOf(r),
    total: r.total,
    share: grandTotal > 0 ? r.total / grandTotal : 0,
  }));
}

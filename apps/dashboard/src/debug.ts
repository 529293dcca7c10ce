/**
 * What the page shows right now, published as `window.__dashboard`: the browser test compares it with the
 * API's own answers to the same queries, and it is handy in the console. Never holds the secret.
 */
import type { OutcomeField } from '@va/contracts';
import type { Precision } from '@va/client';
import type { LiveMode } from './live';
import type { DashboardQueries } from './queries';
import type { Counts, Series, TopRow } from './series';
import type { ViewState } from './view-state';

export interface DashboardDebug {
  view: ViewState;
  mode: 'rootKey' | 'readToken' | 'signedOut';
  /** The APIs the picker offers (GET /v1/apis.list; a read token's one API). */
  apis?: string[];
  /** The queries of the last completed refresh, with their exact start and end. */
  queries?: DashboardQueries;
  /** The series the chart was given (raw counts per outcome). */
  series?: Series;
  /** What the chart holds: x in unix seconds and, per outcome, the top of its stacked bar. */
  chart?: { time: number[]; stacked: Record<OutcomeField, number[]> };
  totals?: Counts;
  top?: { keys: TopRow[]; identities: TopRow[]; tags: TopRow[]; regions: TopRow[] };
  precision?: Precision;
  /** The stream behind the refreshes (live.ts): connecting, stream (live), or polling without one. */
  live?: LiveMode;
  /** Refreshes the stream asked for (an answer that differs from the drawn one). */
  streamUpdates?: number;
  /** Completed refreshes (successful or not). */
  refreshes: number;
  error?: string;
}

declare global {
  interface Window {
    __dashboard: DashboardDebug;
  }
}

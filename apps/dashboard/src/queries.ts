/**
 * The getVerifications queries behind one refresh of the page, built from the view and the clock.
 * Pure, so the browser test can replay exactly the same queries against the API (window.__dashboard).
 */
import type { VerificationsQuery } from '@va/contracts';
import { effectiveGranularity, RANGE_MS, type ViewState } from './view-state';

/** How many rows each "top" table shows. */
export const TOP_N = 10;

export interface DashboardQueries {
  /** One row per time slice (stacked chart). */
  series: VerificationsQuery;
  /** One row: totals per outcome over the whole range. */
  totals: VerificationsQuery;
  topKeys: VerificationsQuery;
  topIdentities: VerificationsQuery;
  topTags: VerificationsQuery;
  topRegions: VerificationsQuery;
}

/**
 * A read token fixes the API and the externalId: the page then sends the token's values whatever the
 * view says (the service would refuse others anyway).
 */
export interface Scope {
  apiId: string;
  externalId: string;
}

export function buildQueries(view: ViewState, nowMs: number, scope?: Scope): DashboardQueries {
  const apiId = scope?.apiId ?? view.apiId;
  const externalId = scope?.externalId ?? view.externalId;
  // `end` is explicit (not the server's default) so that every query of one refresh covers the same range.
  const base: VerificationsQuery = { apiId, start: Math.max(0, nowMs - RANGE_MS[view.range]), end: nowMs };
  if (externalId) base.externalId = externalId;
  if (view.keyIds.length > 0) base.keyId = [...view.keyIds];
  if (view.tags.length > 0) base.tag = [...view.tags];
  const top = (group: 'key' | 'identity' | 'tag' | 'region'): VerificationsQuery => ({
    ...base,
    groupBy: [group],
    orderBy: 'total',
    order: 'desc',
    limit: TOP_N,
  });
  return {
    // The chart labels its slices in UTC (chart-labels.ts): it asks for UTC days and months, not the API's
    // default zone.
    series: { ...base, groupBy: [effectiveGranularity(view)], timeZone: 'UTC' },
    totals: base,
    topKeys: top('key'),
    topIdentities: top('identity'),
    topTags: top('tag'),
    topRegions: top('region'),
  };
}

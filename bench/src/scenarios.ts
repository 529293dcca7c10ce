/**
 * The query scenarios of the issue, on the medium tenant, as query strings of
 * GET /v1/analytics.getVerifications. Each carries the ClickHouse reference p50 it is compared
 * with (our aim: half of it). Times are relative to `now`, taken when the scenario runs.
 */
import { HOUR_MS, monthOf, monthStart } from '@va/core';

export interface ScenarioContext {
  now: number;
  apiId: string;
  /** externalId of the identity the per-identity scenarios ask about (the busiest one). */
  externalId: string;
  /** Two tags for the tag filter scenario. */
  tags: [string, string];
}

export interface Scenario {
  name: string;
  title: string;
  /** ClickHouse p50 in ms for the same question (from the issue). */
  referenceP50Ms: number;
  params(ctx: ScenarioContext): [string, string][];
}

const DAYS_30 = 30 * 24 * HOUR_MS;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'identity-24h-by-hour',
    title: 'last 24 h by hour, one identity',
    referenceP50Ms: 5.4,
    params: (c) => [
      ['externalId', c.externalId],
      ['start', String(c.now - 24 * HOUR_MS)],
      ['groupBy', 'hour'],
    ],
  },
  {
    name: 'identity-keys-by-day-month',
    title: 'per-key daily breakdown, one identity, this month',
    referenceP50Ms: 11.3,
    params: (c) => [
      ['externalId', c.externalId],
      ['start', String(monthStart(monthOf(c.now)))],
      ['groupBy', 'key'],
      ['groupBy', 'day'],
    ],
  },
  {
    name: 'identity-by-month',
    title: 'monthly totals, one identity, 12 months',
    referenceP50Ms: 5.2,
    params: (c) => [
      ['externalId', c.externalId],
      ['start', String(monthStart(monthOf(c.now) - 11))],
      ['groupBy', 'month'],
    ],
  },
  {
    name: 'top10-identities-30d',
    title: 'top 10 identities, 30 days',
    referenceP50Ms: 108,
    params: (c) => [
      ['start', String(c.now - DAYS_30)],
      ['groupBy', 'identity'],
      ['orderBy', 'total'],
      ['order', 'desc'],
      ['limit', '10'],
    ],
  },
  {
    name: 'api-30d-by-day',
    title: 'the API, last 30 days by day',
    referenceP50Ms: 109,
    params: (c) => [
      ['start', String(c.now - DAYS_30)],
      ['groupBy', 'day'],
    ],
  },
  {
    name: 'two-tags-30d',
    title: 'two tags (all of), 30 days by day',
    referenceP50Ms: 168,
    params: (c) => [
      ['tag', c.tags[0]],
      ['tag', c.tags[1]],
      ['start', String(c.now - DAYS_30)],
      ['groupBy', 'day'],
    ],
  },
  {
    name: 'by-tag-30d',
    title: 'grouped by tag, 30 days',
    referenceP50Ms: 256,
    params: (c) => [
      ['start', String(c.now - DAYS_30)],
      ['groupBy', 'tag'],
    ],
  },
  {
    name: 'year-by-month',
    title: 'one year by month',
    referenceP50Ms: 88,
    params: (c) => [
      ['start', String(c.now - 365 * 24 * HOUR_MS)],
      ['groupBy', 'month'],
    ],
  },
];

/** The path and query string of a scenario: apiId first, then its own parameters. */
export function scenarioPath(scenario: Scenario, ctx: ScenarioContext): string {
  const search = new URLSearchParams([['apiId', ctx.apiId], ...scenario.params(ctx)]);
  return `/v1/analytics.getVerifications?${search.toString()}`;
}

export function selectScenarios(names: readonly string[] | null): Scenario[] {
  if (names === null) return [...SCENARIOS];
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`,
    );
  }
  return SCENARIOS.filter((s) => names.includes(s.name));
}

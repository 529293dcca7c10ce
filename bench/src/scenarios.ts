/**
 * The query scenarios of the issue, on the medium tenant, as query strings of
 * GET /v1/analytics.getVerifications. Each carries the ClickHouse reference p50 it is compared
 * with (our aim: half of it). Times are relative to `now`, taken when the scenario runs.
 */
import { HOUR_MS, hourOf, monthOf, monthStart, sliceIndexAt, sliceStartOf } from '@va/core';

export interface ScenarioContext {
  now: number;
  apiId: string;
  /** externalId of the identity the per-identity scenarios ask about (the busiest one). */
  externalId: string;
  /** Two tags for the tag filter scenario. */
  tags: [string, string];
  /** keyId of the key the key-filter time-range scenarios ask about (the busiest one). */
  keyId: string;
  /** The zone a scenario is asked in (`inZone`); absent: UTC. */
  timeZone?: string;
}

/** The start of the month holding `now` in the calendar of `zone` (UTC without one): "this month" as its users see it. */
const thisMonthStart = (now: number, zone?: string): number =>
  sliceStartOf(sliceIndexAt(now, 'month', zone), 'month', zone);

export interface Scenario {
  name: string;
  title: string;
  /** ClickHouse p50 in ms for the same question (from the issue); none for the time-range checks. */
  referenceP50Ms?: number;
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
      ['start', String(thisMonthStart(c.now, c.timeZone))],
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

/**
 * The "time ranges" check: with groupBy=day, a 1-year query may take at most `maxRatio`
 * times the 1-month one (p50 at c=1), alone, with a key filter and with a tag filter. Each pair
 * is two scenarios of RANGE_SCENARIOS, run like the others.
 */
export interface RangeCheck {
  title: string;
  month: string;
  year: string;
  maxRatio: number;
}

const DAYS_365 = 365 * 24 * HOUR_MS;

function rangePair(
  name: string,
  title: string,
  filter: (c: ScenarioContext) => [string, string][],
): [Scenario, Scenario] {
  const of = (span: string, ms: number): Scenario => ({
    name: `range-${name}-${span}`,
    title: `${title}, by day, ${span === 'year' ? '1 year' : '1 month'}`,
    params: (c) => [...filter(c), ['start', String(c.now - ms)], ['groupBy', 'day']],
  });
  return [of('month', DAYS_30), of('year', DAYS_365)];
}

export const RANGE_SCENARIOS: readonly Scenario[] = [
  ...rangePair('api', 'the API', () => []),
  ...rangePair('key', 'one key', (c) => [['keyId', c.keyId]]),
  ...rangePair('tag', 'one tag', (c) => [['tag', c.tags[0]]]),
];

export const RANGE_CHECKS: readonly RangeCheck[] = [
  { title: 'groupBy=day', month: 'range-api-month', year: 'range-api-year', maxRatio: 1.5 },
  { title: 'groupBy=day, key filter', month: 'range-key-month', year: 'range-key-year', maxRatio: 2 },
  { title: 'groupBy=day, tag filter', month: 'range-tag-month', year: 'range-tag-year', maxRatio: 2 },
];

/**
 * Minute slices (docs/api.md#minute-slices): the live dashboard's question, the last 3 hours by minute (goal:
 * p50 < 2 ms on the medium tenant), and the same for one identity (cube i: a filter's HMGET per minute).
 */
export const MINUTE_SCENARIOS: readonly Scenario[] = [
  {
    name: 'api-3h-by-minute',
    title: 'the API, last 3 hours by minute',
    params: (c) => [
      ['start', String(c.now - 3 * HOUR_MS)],
      ['groupBy', 'minute'],
    ],
  },
  {
    name: 'identity-3h-by-minute',
    title: 'last 3 hours by minute, one identity',
    params: (c) => [
      ['externalId', c.externalId],
      ['start', String(c.now - 3 * HOUR_MS)],
      ['groupBy', 'minute'],
    ],
  },
];

/**
 * Grouped by region, 30 days (#43: goal p50 < 2 ms on the medium tenant, like every scenario's). The bench's
 * events carry a region half of the time, one of three (libs/workload generator.ts REGIONS).
 */
export const REGION_SCENARIO: Scenario = {
  name: 'api-30d-by-region',
  title: 'the API by region, 30 days',
  params: (c) => [
    ['start', String(c.now - DAYS_30)],
    ['groupBy', 'region'],
  ],
};

/**
 * The customer's calendar (#43): zones whose slices the bench asks for beside UTC's. New York's offset is a
 * whole hour (its slices are runs of UTC hours); Kolkata's is not (+05:30: edge hours attributed whole).
 */
export const TIME_ZONES = ['America/New_York', 'Asia/Kolkata'] as const;
/**
 * The medium API's one billing zone (#43: "one configured billing zone besides UTC"; docs/api.md#billing-zones),
 * declared before the data set is produced: its slices are read from UTC days and the zone's edges, New York's are
 * composed from UTC hours as any zone's.
 */
export const BILLING_ZONE = 'Asia/Kolkata';
/** A zone scenario's p50 may be at most this multiple of its UTC scenario's (p50 at c=1, same run). */
export const ZONE_MAX_RATIO = 1.2;
/** The scenarios asked in each zone: the e, h, b and g. */
const ZONED = ['api-30d-by-day', 'year-by-month', 'identity-keys-by-day-month', 'by-tag-30d'];

/** Suffix of a scenario's form in `zone`: `-tz-` and the zone's city, lower case (`-tz-new-york`). */
export const zoneSuffix = (zone: string): string =>
  `-tz-${zone
    .slice(zone.lastIndexOf('/') + 1)
    .toLowerCase()
    .replaceAll('_', '-')}`;

/**
 * A scenario asked in a zone's calendar: the same question plus `timeZone`, as a user of that zone asks it: "this
 * month" starts at the zone's first of the month (scenario b); every other parameter is the UTC scenario's.
 */
export function inZone(scenario: Scenario, zone: string): Scenario {
  return {
    ...scenario,
    name: `${scenario.name}${zoneSuffix(zone)}`,
    title: `${scenario.title}, ${zone}`,
    params: (c) => [...scenario.params({ ...c, timeZone: zone }), ['timeZone', zone]],
  };
}

export const ZONE_SCENARIOS: readonly Scenario[] = ZONED.flatMap((name) =>
  TIME_ZONES.map((zone) =>
    inZone(
      SCENARIOS.find((s) => s.name === name)!,
      zone,
    ),
  ),
);

/** The "time zones" check: one zone scenario against its UTC scenario (each also in its "ends now" form). */
export interface ZoneCheck {
  utc: string;
  zoned: string;
  zone: string;
  maxRatio: number;
}

/** Suffix of a scenario's "ends now" form. */
export const ENDS_NOW = '-ends-now';

/**
 * A scenario's "ends now" form: the same question with an explicit `end` at `now`, inside the
 * current hour of the current UTC day, as a dashboard asks it. The hours of today up to now are
 * then edge hours the answer must read one by one (docs/query-semantics.md); a range that ends at
 * a day boundary, or a run early in the UTC day, reads few or none of them.
 */
export function endsNow(scenario: Scenario): Scenario {
  return {
    ...scenario,
    name: `${scenario.name}${ENDS_NOW}`,
    title: `${scenario.title}, ends now`,
    params: (c) => [...scenario.params(c), ['end', String(c.now)]],
  };
}

/** Hours of the UTC day of `end` that a range ending at `end` covers: its edge hours of "today". */
export function edgeHoursOfDay(end: number): number {
  return (hourOf(end) % 24) + 1;
}

/**
 * Every scenario: the (with a ClickHouse reference), then the time-range pairs, the minute slices, the
 * region and the zone forms, then each in its "ends now" form.
 */
const BASE_SCENARIOS: readonly Scenario[] = [
  ...SCENARIOS,
  ...RANGE_SCENARIOS,
  ...MINUTE_SCENARIOS,
  REGION_SCENARIO,
  ...ZONE_SCENARIOS,
];
export const ALL_SCENARIOS: readonly Scenario[] = [...BASE_SCENARIOS, ...BASE_SCENARIOS.map(endsNow)];

export const ZONE_CHECKS: readonly ZoneCheck[] = [false, true].flatMap((now) =>
  ZONED.flatMap((name) =>
    TIME_ZONES.map((zone) => {
      const suffix = now ? ENDS_NOW : '';
      return {
        utc: `${name}${suffix}`,
        zoned: `${name}${zoneSuffix(zone)}${suffix}`,
        zone,
        maxRatio: ZONE_MAX_RATIO,
      };
    }),
  ),
);

/** The path and query string of a scenario: apiId first, then its own parameters. */
export function scenarioPath(scenario: Scenario, ctx: ScenarioContext): string {
  const search = new URLSearchParams([['apiId', ctx.apiId], ...scenario.params(ctx)]);
  return `/v1/analytics.getVerifications?${search.toString()}`;
}

/**
 * The isolation check, run after the scenarios: the light question below, from root key B at
 * one connection, while 10 connections loop on the heavy one (phases/light-under-heavy.ts).
 */
export const LIGHT_UNDER_HEAVY = 'light-under-heavy';
export const LIGHT_SCENARIO: Scenario = endsNow(SCENARIOS.find((s) => s.name === 'api-30d-by-day')!);
/** The heavy request: every key, tag combination and hour since the epoch, up to 100,000 rows. */
export const HEAVY_PARAMS: [string, string][] = [
  ['groupBy', 'key'],
  ['groupBy', 'tags'],
  ['groupBy', 'hour'],
  ['start', '0'],
  ['limit', '100000'],
];

/** Whether a run with these --scenario names (null: all) runs the light-under-heavy check. */
export const selectsLightUnderHeavy = (names: readonly string[] | null): boolean =>
  names === null || names.includes(LIGHT_UNDER_HEAVY);

export function selectScenarios(names: readonly string[] | null): Scenario[] {
  if (names === null) return [...ALL_SCENARIOS];
  const unknown = names.filter((n) => n !== LIGHT_UNDER_HEAVY && !ALL_SCENARIOS.some((s) => s.name === n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; known: ${[...ALL_SCENARIOS.map((s) => s.name), LIGHT_UNDER_HEAVY].join(', ')}`,
    );
  }
  return ALL_SCENARIOS.filter((s) => names.includes(s.name));
}

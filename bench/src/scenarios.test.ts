import { describe, expect, it } from 'vitest';
import {
  ALL_SCENARIOS,
  edgeHoursOfDay,
  ENDS_NOW,
  LIGHT_SCENARIO,
  LIGHT_UNDER_HEAVY,
  REGION_SCENARIO,
  SCENARIOS,
  TIME_ZONES,
  ZONE_CHECKS,
  ZONE_SCENARIOS,
  zoneSuffix,
  scenarioPath,
  selectScenarios,
  selectsLightUnderHeavy,
  type ScenarioContext,
} from './scenarios';

// 2026-11-27 15:42:10.123 UTC: mid-day, mid-hour.
const NOW = Date.UTC(2026, 10, 27, 15, 42, 10, 123);
const ctx: ScenarioContext = {
  now: NOW,
  apiId: 'medium',
  externalId: 'ext_1',
  tags: ['a', 'b'],
  keyId: 'key_1',
};
const params = (name: string) =>
  new URLSearchParams(
    scenarioPath(
      ALL_SCENARIOS.find((s) => s.name === name)!,
      ctx,
    ).split('?')[1],
  );

describe('"ends now" forms (#40)', () => {
  it('every scenario has one: the same parameters plus an end at now, inside the current hour', () => {
    for (const scenario of SCENARIOS) {
      const base = params(scenario.name);
      const now = params(`${scenario.name}${ENDS_NOW}`);
      expect(now.get('end')).toBe(String(NOW));
      now.delete('end');
      expect(now.toString()).toBe(base.toString());
    }
    expect(ALL_SCENARIOS.filter((s) => s.name.endsWith(ENDS_NOW))).toHaveLength(ALL_SCENARIOS.length / 2);
  });

  it('keeps the ClickHouse reference of its scenario', () => {
    const by = (name: string) => ALL_SCENARIOS.find((s) => s.name === name)!;
    expect(by(`top10-identities-30d${ENDS_NOW}`).referenceP50Ms).toBe(
      by('top10-identities-30d').referenceP50Ms,
    );
  });

  it('counts the edge hours of the UTC day a range ending at `end` reads', () => {
    expect(edgeHoursOfDay(NOW)).toBe(16);
    expect(edgeHoursOfDay(Date.UTC(2026, 10, 27, 0, 0, 0, 1))).toBe(1);
    expect(edgeHoursOfDay(Date.UTC(2026, 10, 27, 23, 59, 59, 999))).toBe(24);
  });
});

describe('light-under-heavy selection', () => {
  it('is a known name, run with every scenario or when named, and its light query ends now', () => {
    expect(selectScenarios([LIGHT_UNDER_HEAVY])).toEqual([]);
    expect(selectsLightUnderHeavy(null)).toBe(true);
    expect(selectsLightUnderHeavy(['api-30d-by-day'])).toBe(false);
    expect(selectsLightUnderHeavy([LIGHT_UNDER_HEAVY])).toBe(true);
    expect(() => selectScenarios(['nope'])).toThrow(/light-under-heavy/);
    expect(scenarioPath(LIGHT_SCENARIO, ctx)).toContain(`end=${NOW}`);
  });
});

describe("the customer's calendar (#43)", () => {
  it('asks each of e, h, b and g in every zone: the UTC parameters plus timeZone, "this month" in the zone', () => {
    expect(zoneSuffix('America/New_York')).toBe('-tz-new-york');
    expect(zoneSuffix('Asia/Kolkata')).toBe('-tz-kolkata');
    expect(ZONE_SCENARIOS).toHaveLength(4 * TIME_ZONES.length);
    // NOW is 2026-11-27 15:42 UTC: November in both zones; its first starts at 04:00 UTC in New York (EST,
    // -05:00) and at 18:30 UTC on October 31 in Kolkata (+05:30).
    const thisMonth: Record<string, number> = {
      'America/New_York': Date.UTC(2026, 10, 1, 4),
      'Asia/Kolkata': Date.UTC(2026, 9, 31, 18, 30),
    };
    for (const base of ['api-30d-by-day', 'year-by-month', 'identity-keys-by-day-month', 'by-tag-30d']) {
      for (const zone of TIME_ZONES) {
        for (const suffix of ['', ENDS_NOW]) {
          const zoned = params(`${base}${zoneSuffix(zone)}${suffix}`);
          expect(zoned.getAll('timeZone')).toEqual([zone]);
          zoned.delete('timeZone');
          const utc = params(`${base}${suffix}`);
          if (base === 'identity-keys-by-day-month') {
            expect(utc.get('start')).toBe(String(Date.UTC(2026, 10, 1)));
            expect(zoned.get('start')).toBe(String(thisMonth[zone]));
            zoned.delete('start');
            utc.delete('start');
          }
          expect(zoned.toString()).toBe(utc.toString());
        }
      }
    }
  });

  it('checks every zone scenario, in both forms, against its UTC scenario at 1.2×', () => {
    const zoned = ALL_SCENARIOS.filter((s) => s.name.includes('-tz-')).map((s) => s.name);
    expect(ZONE_CHECKS.map((c) => c.zoned).sort()).toEqual(zoned.sort());
    for (const check of ZONE_CHECKS) {
      expect(check.maxRatio).toBe(1.2);
      expect(check.zoned).toBe(check.utc.replace(/(-ends-now)?$/, `${zoneSuffix(check.zone)}$1`));
      expect(ALL_SCENARIOS.some((s) => s.name === check.utc)).toBe(true);
    }
  });

  it('groups the API by region over 30 days, in both forms', () => {
    const region = params(REGION_SCENARIO.name);
    expect(region.getAll('groupBy')).toEqual(['region']);
    expect(region.get('start')).toBe(String(NOW - 30 * 86_400_000));
    expect(selectScenarios([`${REGION_SCENARIO.name}${ENDS_NOW}`])).toHaveLength(1);
  });
});

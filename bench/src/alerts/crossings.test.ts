import { describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { expectedCrossings } from '@va/core';
import { liveEvents } from '../dataset';
import { CrossingClock } from './crossings';
import { planRules } from './plan';

const APIS = [
  { apiId: 'medium', workspaceId: 'ws_medium' },
  { apiId: 'bg_api_0', workspaceId: 'bg_ws_0' },
];

/** Live-shaped events from `from`, `stepMs` apart. */
function events(n: number, from: number, stepMs: number): VerificationEvent[] {
  const source = liveEvents(5);
  return Array.from({ length: n }, (_, i) => {
    const e = source.next().value!;
    return { ...e, apiId: i % 3 === 0 ? 'bg_api_0' : 'medium', time: from + i * stepMs };
  });
}
const MIDNIGHT = Date.UTC(2026, 10, 28);

describe('CrossingClock', () => {
  it('finds the crossings of the oracle (expectedCrossings), each once, timed by the event that made it', () => {
    // Small levels, so that many are reached: the plan's levels divided by 50 (5, 50, 500, ...).
    const rules = planRules(120, APIS, 0).map((r) => ({ ...r, levels: r.levels.map((l) => l / 50) }));
    // Across a UTC midnight: the day periods start again.
    const list = events(6_000, MIDNIGHT - 60_000, 20);
    const clock = new CrossingClock(rules);
    let made = 0;
    list.forEach((e, i) => (made += clock.add(e, 1_000 + i)));
    const expected = expectedCrossings(rules, list);
    expect(expected.size).toBeGreaterThan(100);
    expect(new Set(clock.crossings.keys())).toEqual(new Set(expected.keys()));
    expect(made).toBe(expected.size);
    for (const c of clock.crossings.values()) {
      expect(expected.get(c.alertId)).toEqual({
        alertId: c.alertId,
        ruleId: c.ruleId,
        member: c.member,
        periodStart: c.periodStart,
        level: c.level,
      });
      // The event that crossed: the level-th one of its rule's member and period, no earlier.
      const rule = rules.find((r) => r.ruleId === c.ruleId)!;
      const before = list.slice(0, c.sentAt - 1_000);
      expect(expectedCrossings([rule], before).has(c.alertId)).toBe(false);
      expect(expectedCrossings([rule], [...before, list[c.sentAt - 1_000]!]).has(c.alertId)).toBe(true);
    }
  });

  it("counts in the period of the rule's time zone, where local midnight falls inside a UTC hour", () => {
    const rules = planRules(24, APIS, 0).map((r, n) => ({
      ...r,
      levels: r.levels.map((l) => l / 50),
      ...(n % 2 === 0 && { timeZone: 'Asia/Kolkata' }),
    }));
    // 17:30 to 20:30 UTC: Kolkata's midnight is 18:30 UTC, inside the UTC hour 18:00.
    const list = events(5_400, MIDNIGHT + 17.5 * 3_600_000, 2_000);
    const clock = new CrossingClock(rules);
    list.forEach((e, i) => clock.add(e, i));
    const expected = expectedCrossings(rules, list);
    expect(new Set([...clock.crossings.values()].map((c) => c.periodStart))).toContain(
      MIDNIGHT + 18.5 * 3_600_000,
    );
    expect(new Set(clock.crossings.keys())).toEqual(new Set(expected.keys()));
  });
});

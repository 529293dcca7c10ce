import { describe, expect, it } from 'vitest';
import { ALERT_RULE_ID_PATTERN, MAX_ALERT_LEVELS, MAX_ALERT_RULES_PER_API } from '@va/contracts';
import { dataSetApis } from '../dataset';
import { ALERT_RULES, KINDS_PER_API, planRules, rulesPerApi, workspacesOf } from './plan';

describe('planRules', () => {
  const apis = dataSetApis();
  const rules = planRules(ALERT_RULES, apis, 7);

  it('spreads 10,000 valid "each identity" rules over every API of the data set, six counters each', () => {
    expect(rules).toHaveLength(10_000);
    expect(new Set(rules.map((r) => r.ruleId)).size).toBe(10_000);
    expect(rules.every((r) => new RegExp(ALERT_RULE_ID_PATTERN).test(r.ruleId))).toBe(true);
    expect(rules.every((r) => r.scope.kind === 'eachIdentity' && r.levels.length <= MAX_ALERT_LEVELS)).toBe(
      true,
    );
    const perApi = rulesPerApi(rules);
    expect(perApi.size).toBe(apis.length);
    for (const { rules: n, counters } of perApi.values()) {
      expect(n).toBeGreaterThanOrEqual(Math.floor(10_000 / apis.length));
      expect(n).toBeLessThanOrEqual(Math.min(MAX_ALERT_RULES_PER_API, Math.ceil(10_000 / apis.length)));
      expect(counters).toBe(KINDS_PER_API);
    }
  });

  it('gives the rules of a counter different levels, ascending, three orders of magnitude', () => {
    const medium = rules.filter((r) => r.apiId === 'medium');
    const validMonth = medium.filter((r) => r.period === 'month' && r.outcomes?.join() === 'VALID');
    expect(validMonth.map((r) => r.levels)).toContainEqual([500, 5_000, 50_000]);
    expect(new Set(validMonth.map((r) => r.levels[0])).size).toBe(validMonth.length);
    const refusals = medium.filter((r) => r.outcomes?.includes('RATE_LIMITED'));
    expect(refusals.map((r) => r.levels[0])).toContain(50);
    expect(rules.every((r) => r.levels[1] === 10 * r.levels[0]! && r.levels[2] === 100 * r.levels[0]!)).toBe(
      true,
    );
    expect(planRules(50, apis, 7)).toEqual(rules.slice(0, 50));
  });

  it('has one endpoint per workspace with rules', () => {
    const workspaces = workspacesOf(rules, apis);
    expect(workspaces).toEqual([...new Set(apis.map((a) => a.workspaceId))]);
    expect(workspacesOf(planRules(1, apis, 0), apis)).toEqual(['ws_medium']);
  });
});

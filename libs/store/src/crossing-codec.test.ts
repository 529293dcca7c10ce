import { describe, expect, it } from 'vitest';
import { alertId } from '@va/core';
import { CROSSING_FIELDS, decodeCrossing, encodeCrossing, type CrossingFields } from './crossing-codec';

const crossing: CrossingFields = {
  ruleId: 'rule_5f0c3b9d2a41e8c7b6a90d13',
  member: 'acme corp',
  period: 'month',
  periodStart: Date.parse('2028-02-01T00:00:00Z'),
  level: 1000,
  count: 1003,
  detectedAt: Date.parse('2028-02-11T10:00:00Z'),
};

describe('crossing codec', () => {
  it('round-trips a crossing and derives its alert id from rule, member, period start and level', () => {
    const fields = encodeCrossing(crossing);
    expect(fields.filter((_, i) => i % 2 === 0)).toEqual([...CROSSING_FIELDS]);
    expect(decodeCrossing('api_1', fields)).toEqual({
      ...crossing,
      apiId: 'api_1',
      alertId: alertId(crossing.ruleId, crossing.member, crossing.periodStart, crossing.level),
    });
  });

  it('keeps the empty member of a whole-API rule', () => {
    expect(decodeCrossing('api_1', encodeCrossing({ ...crossing, member: '' })).member).toBe('');
  });

  it('refuses malformed entries', () => {
    const fields = encodeCrossing(crossing);
    const without = (name: string) => fields.filter((_, i) => fields[i - (i % 2)] !== name);
    expect(() => decodeCrossing('a', without('ruleId'))).toThrow(/ruleId/);
    expect(() => decodeCrossing('a', without('member'))).toThrow(/member/);
    expect(() => decodeCrossing('a', without('level'))).toThrow(/level/);
    const badPeriod = encodeCrossing({ ...crossing, period: 'week' as 'day' });
    expect(() => decodeCrossing('a', badPeriod)).toThrow(/period/);
    const badCount = [...fields.slice(0, -4), 'count', '1.5', 'detectedAt', '1'];
    expect(() => decodeCrossing('a', badCount)).toThrow(/count/);
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alertId, alertPeriodStart } from './alert-id';

describe('alertId', () => {
  it('is the first 24 hex digits of sha256("ruleId|member|periodStart|level")', () => {
    const full = createHash('sha256').update('rule_0|acme|1767225600000|100').digest('hex');
    expect(alertId('rule_0', 'acme', 1767225600000, 100)).toBe(full.slice(0, 24));
    expect(alertId('rule_0', 'acme', 1767225600000, 100)).toMatch(/^[0-9a-f]{24}$/);
  });

  it('changes with each of its four parts and with nothing else', () => {
    const base = alertId('rule_a', 'm', 0, 1);
    expect(alertId('rule_a', 'm', 0, 1)).toBe(base);
    for (const other of [
      alertId('rule_b', 'm', 0, 1),
      alertId('rule_a', 'n', 0, 1),
      alertId('rule_a', 'm', 86_400_000, 1),
      alertId('rule_a', 'm', 0, 2),
      alertId('rule_a', '', 0, 1),
    ]) {
      expect(other).not.toBe(base);
    }
  });
});

describe('alertPeriodStart', () => {
  it('is the start of the UTC day or calendar month', () => {
    const t = Date.parse('2028-02-29T23:59:59.999Z');
    expect(alertPeriodStart('day', t)).toBe(Date.parse('2028-02-29T00:00:00Z'));
    expect(alertPeriodStart('month', t)).toBe(Date.parse('2028-02-01T00:00:00Z'));
    expect(alertPeriodStart('month', Date.parse('2028-03-01T00:00:00Z'))).toBe(
      Date.parse('2028-03-01T00:00:00Z'),
    );
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { alertId, alertPeriodOfHour, alertPeriodStart } from './alert-id';

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

describe('alertPeriodStart and alertPeriodOfHour in a time zone', () => {
  const at = (iso: string) => Date.parse(iso);
  const H = 3_600_000;

  it('start at local midnight, 23 and 25 hours on the DST days of America/New_York', () => {
    const ny = 'America/New_York';
    expect(alertPeriodStart('day', at('2026-03-09T03:59:59Z'), ny)).toBe(at('2026-03-08T05:00:00Z'));
    expect(alertPeriodStart('day', at('2026-03-09T04:00:00Z'), ny)).toBe(at('2026-03-09T04:00:00Z'));
    expect(alertPeriodStart('month', at('2026-11-01T03:00:00Z'), ny)).toBe(at('2026-10-01T04:00:00Z'));
    expect(alertPeriodStart('month', at('2026-11-01T04:00:00Z'), ny)).toBe(at('2026-11-01T04:00:00Z'));
    const march8 = alertPeriodOfHour('day', at('2026-03-08T12:00:00Z') / H, ny);
    expect(march8).toEqual({ start: at('2026-03-08T05:00:00Z'), lastHour: at('2026-03-09T03:00:00Z') / H });
    const nov1 = alertPeriodOfHour('day', at('2026-11-01T04:00:00Z') / H, ny);
    expect(nov1).toEqual({ start: at('2026-11-01T04:00:00Z'), lastHour: at('2026-11-02T04:00:00Z') / H });
    // UTC: absent or named.
    expect(alertPeriodOfHour('day', at('2026-03-08T12:00:00Z') / H)).toEqual({
      start: at('2026-03-08T00:00:00Z'),
      lastHour: at('2026-03-08T23:00:00Z') / H,
    });
    expect(alertPeriodStart('month', at('2026-03-08T12:00:00Z'), 'UTC')).toBe(at('2026-03-01T00:00:00Z'));
  });

  it('in Asia/Kolkata an hour holding a local midnight belongs to the earlier day', () => {
    const k = 'Asia/Kolkata';
    // Hour 18:00Z March 7 starts at 23:30 local March 7.
    expect(alertPeriodOfHour('day', at('2026-03-07T18:00:00Z') / H, k)).toEqual({
      start: at('2026-03-06T18:30:00Z'),
      lastHour: at('2026-03-07T18:00:00Z') / H,
    });
    expect(alertPeriodOfHour('day', at('2026-03-07T19:00:00Z') / H, k).start).toBe(
      at('2026-03-07T18:30:00Z'),
    );
    // The instant itself is on the local calendar: 18:45Z is March 8 local.
    expect(alertPeriodStart('day', at('2026-03-07T18:45:00Z'), k)).toBe(at('2026-03-07T18:30:00Z'));
  });
});

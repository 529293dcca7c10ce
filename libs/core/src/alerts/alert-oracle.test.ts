import { describe, expect, it } from 'vitest';
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { alertCounterId } from './alert-counter';
import { alertId } from './alert-id';
import { expectedCrossings } from './alert-oracle';

const JAN = Date.parse('2028-01-31T23:00:00Z');
const FEB = Date.parse('2028-02-01T01:00:00Z');

const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: 'rule_000000000000000000000001',
  apiId: 'api_a',
  scope: { kind: 'api' },
  period: 'month',
  levels: [2, 3],
  createdAt: 0,
  ...over,
});

let n = 0;
const event = (over: Partial<VerificationEvent>): VerificationEvent => ({
  requestId: `r${n++}`,
  time: JAN,
  workspaceId: 'ws',
  apiId: 'api_a',
  keyId: 'key_1',
  outcome: 'VALID',
  ...over,
});

const tuples = (rules: AlertRule[], events: VerificationEvent[]) =>
  [...expectedCrossings(rules, events).values()]
    .map(
      (c) =>
        `${c.ruleId.slice(-1)}|${c.member}|${new Date(c.periodStart).toISOString().slice(0, 10)}|${c.level}`,
    )
    .sort();

describe('expectedCrossings', () => {
  it('counts per member and period; each level reached is one crossing with its alert id', () => {
    const r = rule({ scope: { kind: 'eachIdentity' } });
    const alice = { id: 'u1', externalId: 'alice' };
    const bob = { id: 'u2', externalId: 'bob' };
    const events = [
      event({ identity: alice }),
      event({ identity: alice }),
      event({ identity: alice }),
      event({ identity: bob }),
      event({ identity: bob, time: FEB }),
      event({}), // no identity: never counts for identity scopes
    ];
    const out = expectedCrossings([r], events);
    const jan = Date.parse('2028-01-01T00:00:00Z');
    expect([...out.keys()].sort()).toEqual(
      [alertId(r.ruleId, 'alice', jan, 2), alertId(r.ruleId, 'alice', jan, 3)].sort(),
    );
    expect(tuples([r], events)).toEqual(['1|alice|2028-01-01|2', '1|alice|2028-01-01|3']);
  });

  it('applies outcomes, all-of tags, key and identity scopes, and the day period', () => {
    const rules = [
      rule({ ruleId: 'rule_000000000000000000000002', outcomes: ['RATE_LIMITED'], levels: [1] }),
      rule({ ruleId: 'rule_000000000000000000000003', tags: ['a', 'b'], levels: [1] }),
      rule({ ruleId: 'rule_000000000000000000000004', scope: { kind: 'key', keyId: 'key_2' }, levels: [1] }),
      rule({
        ruleId: 'rule_000000000000000000000005',
        scope: { kind: 'identity', externalId: 'x' },
        period: 'day',
        levels: [1],
      }),
      rule({ ruleId: 'rule_000000000000000000000006', scope: { kind: 'eachKey' }, levels: [2] }),
    ];
    const events = [
      event({ tags: ['a'] }),
      event({ tags: ['b', 'a', 'c'], keyId: 'key_2' }),
      event({ outcome: 'RATE_LIMITED', identity: { id: 'i', externalId: 'x' }, time: FEB }),
    ];
    events.push(event({ keyId: 'key_2', time: JAN - 1 }));
    expect(tuples(rules, events)).toEqual([
      '2||2028-02-01|1',
      '3||2028-01-01|1',
      '4|key_2|2028-01-01|1',
      '5|x|2028-02-01|1',
      '6|key_2|2028-01-01|2',
    ]);
  });

  it('does not depend on the order of the events', () => {
    const r = rule({ scope: { kind: 'eachKey' }, levels: [1, 2, 5] });
    const events = Array.from({ length: 20 }, (_, i) => event({ keyId: `key_${i % 4}`, time: JAN + i }));
    expect(expectedCrossings([r], [...events].reverse())).toEqual(expectedCrossings([r], events));
  });
});

describe('alertCounterId', () => {
  it('is the same for rules counting the same thing, whatever their levels or spelling', () => {
    const a = rule({ outcomes: ['VALID', 'EXPIRED'], tags: ['y', 'x'], levels: [1] });
    const b = rule({ outcomes: ['EXPIRED', 'VALID'], tags: ['x', 'y'], levels: [5, 9] });
    expect(alertCounterId(a)).toBe(alertCounterId(b));
    expect(alertCounterId(a)).toMatch(/^[0-9a-f]{16}$/);
    // Absent outcomes = every outcome.
    expect(alertCounterId(rule({}))).toBe(
      alertCounterId(
        rule({
          outcomes: [
            'VALID',
            'NOT_FOUND',
            'FORBIDDEN',
            'USAGE_EXCEEDED',
            'RATE_LIMITED',
            'UNAUTHORIZED',
            'DISABLED',
            'INSUFFICIENT_PERMISSIONS',
            'EXPIRED',
          ],
        }),
      ),
    );
  });

  it('differs with the scope, its target, the outcomes, the tags and the period', () => {
    const base = alertCounterId(rule({}));
    for (const other of [
      rule({ scope: { kind: 'eachKey' } }),
      rule({ scope: { kind: 'key', keyId: 'a' } }),
      rule({ scope: { kind: 'key', keyId: 'b' } }),
      rule({ outcomes: ['VALID'] }),
      rule({ tags: ['a'] }),
      rule({ period: 'day' }),
    ]) {
      expect(alertCounterId(other)).not.toBe(base);
    }
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OUTCOMES, type AlertRule, type VerificationEvent } from '@va/contracts';
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

describe("expectedCrossings in a rule's time zone", () => {
  const at = (iso: string) => Date.parse(iso);
  const day = (iso: string) => new Date(at(iso)).toISOString();
  const crossings = (rules: AlertRule[], events: VerificationEvent[]) =>
    [...expectedCrossings(rules, events).values()]
      .map((c) => `${c.member}|${new Date(c.periodStart).toISOString()}|${c.level}`)
      .sort();
  const alice = { id: 'u1', externalId: 'alice' };
  const bob = { id: 'u2', externalId: 'bob' };

  it('America/New_York on its 23-hour DST day: local days, not UTC days', () => {
    // 2026-03-08 runs from 05:00Z (midnight EST) to 04:00Z on March 9 (midnight EDT).
    const events = [
      event({ identity: alice, time: at('2026-03-08T05:10:00Z') }), // March 8, 00:10 EST
      event({ identity: alice, time: at('2026-03-09T03:50:00Z') }), // March 8, 23:50 EDT
      event({ identity: bob, time: at('2026-03-08T04:50:00Z') }), // March 7, 23:50 EST
      event({ identity: bob, time: at('2026-03-08T05:10:00Z') }), // March 8
    ];
    const ny = rule({
      scope: { kind: 'eachIdentity' },
      period: 'day',
      levels: [2],
      timeZone: 'America/New_York',
    });
    expect(crossings([ny], events)).toEqual([`alice|${day('2026-03-08T05:00:00Z')}|2`]);
    // The same rule in UTC (absent, or named) sees the other pairs.
    for (const utc of [rule({ ...ny, timeZone: undefined }), rule({ ...ny, timeZone: 'UTC' })])
      expect(crossings([utc], events)).toEqual([`bob|${day('2026-03-08T00:00:00Z')}|2`]);
    // November 1 is 25 hours: 04:00Z November 1 to 05:00Z November 2.
    const fall = [
      event({ identity: alice, time: at('2026-11-01T04:00:00Z') }),
      event({ identity: alice, time: at('2026-11-02T04:59:59Z') }),
      event({ identity: bob, time: at('2026-11-02T05:00:00Z') }), // November 2
      event({ identity: bob, time: at('2026-11-01T03:59:59Z') }), // October 31
    ];
    expect(crossings([ny], fall)).toEqual([`alice|${day('2026-11-01T04:00:00Z')}|2`]);
    // Months start at local midnight of the 1st: 2026-11-01T04:00Z.
    const month = rule({ period: 'month', levels: [3], timeZone: 'America/New_York' });
    expect(crossings([month], [...fall, event({ time: at('2026-11-30T23:00:00Z') })])).toEqual([
      `|${day('2026-11-01T04:00:00Z')}|3`,
    ]);
  });

  it('Asia/Kolkata (+05:30): the hour a local midnight falls into counts whole in the earlier day', () => {
    // Local March 8 starts at 2026-03-07T18:30Z, inside the UTC hour 18:00Z, which started on March 7 (23:30).
    const kolkata = rule({
      scope: { kind: 'eachIdentity' },
      period: 'day',
      levels: [2],
      timeZone: 'Asia/Kolkata',
    });
    const events = [
      event({ identity: alice, time: at('2026-03-07T18:10:00Z') }), // March 7, 23:40 local
      event({ identity: alice, time: at('2026-03-07T18:45:00Z') }), // March 8, 00:15 local: its hour is March 7's
      event({ identity: bob, time: at('2026-03-07T18:45:00Z') }),
      event({ identity: bob, time: at('2026-03-07T19:05:00Z') }), // March 8, 00:35 local
      event({ identity: bob, time: at('2026-03-08T18:20:00Z') }), // March 8, 23:50 local: hour 18:00Z starts in March 8
    ];
    expect(crossings([kolkata], events)).toEqual([
      `alice|${day('2026-03-06T18:30:00Z')}|2`,
      `bob|${day('2026-03-07T18:30:00Z')}|2`,
    ]);
    // A month of Kolkata starts at 18:30Z on the last day of the month before.
    const month = rule({ period: 'month', levels: [1], timeZone: 'Asia/Kolkata' });
    expect(crossings([month], [event({ time: at('2026-02-28T19:00:00Z') })])).toEqual([
      `|${day('2026-02-28T18:30:00Z')}|1`,
    ]);
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

  it('is the same for a rule without a zone and one in UTC: ids of rules from before zones stay', () => {
    expect(alertCounterId(rule({ timeZone: 'UTC' }))).toBe(alertCounterId(rule({})));
    expect(alertCounterId(rule({}))).toBe(
      createHash('sha256')
        .update(JSON.stringify(['api', '', [...OUTCOMES], [], 'month']))
        .digest('hex')
        .slice(0, 16),
    );
  });

  it('differs with the scope, its target, the outcomes, the tags, the period and the zone', () => {
    const base = alertCounterId(rule({}));
    for (const other of [
      rule({ scope: { kind: 'eachKey' } }),
      rule({ scope: { kind: 'key', keyId: 'a' } }),
      rule({ scope: { kind: 'key', keyId: 'b' } }),
      rule({ outcomes: ['VALID'] }),
      rule({ tags: ['a'] }),
      rule({ period: 'day' }),
      rule({ timeZone: 'America/New_York' }),
      rule({ timeZone: 'Europe/London' }),
    ]) {
      expect(alertCounterId(other)).not.toBe(base);
    }
  });
});

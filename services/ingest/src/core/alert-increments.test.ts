import { describe, expect, it } from 'vitest';
import { OUTCOMES, type AlertRule, type VerificationEvent } from '@va/contracts';
import { alertCounterId, alertId, expectedCrossings, hourOf, type Retention } from '@va/core';
import { identityValue, tagSetValue, TupleCounter, type AlertIncrements, type DictName } from '@va/store';
import { alertIncrements, compileAlertRules } from './alert-increments';

const DAY = 86_400_000;
const retention: Retention = { hourMs: 35 * DAY, dayMs: 400 * DAY, monthMs: 5 * 366 * DAY };
const NOW = Date.parse('2028-02-10T12:00:00Z');
const JAN_31 = Date.parse('2028-01-31T23:30:00Z');
const FEB_1 = Date.parse('2028-02-01T00:30:00Z');
const FEB = Date.parse('2028-02-01T00:00:00Z');

let ruleNo = 0;
const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: `rule_${(++ruleNo).toString(16).padStart(24, '0')}`,
  apiId: 'api_a',
  scope: { kind: 'api' },
  period: 'month',
  levels: [1],
  createdAt: 0,
  ...over,
});

let eventNo = 0;
const event = (over: Partial<VerificationEvent>): VerificationEvent => ({
  requestId: `r${eventNo++}`,
  time: JAN_31,
  workspaceId: 'ws',
  apiId: 'api_a',
  keyId: 'key_1',
  outcome: 'VALID',
  ...over,
});

/** The events as the worker counts them: dictionary codes, one TupleCounter. */
function counted(events: readonly VerificationEvent[]) {
  const dicts: Record<DictName, string[]> = { k: [], i: [], s: [] };
  const code = (d: DictName, value: string) => {
    const at = dicts[d].indexOf(value);
    return at >= 0 ? at : dicts[d].push(value) - 1;
  };
  const counter = new TupleCounter();
  for (const e of events) {
    const i = e.identity ? code('i', identityValue(e.identity.id, e.identity.externalId)) : -1;
    const s = code('s', tagSetValue(e.tags, e.region));
    counter.add(hourOf(e.time), code('k', e.keyId), i, s, OUTCOMES.indexOf(e.outcome));
  }
  return { counter, valueOf: (d: DictName, c: number) => dicts[d][c]! };
}

function increments(rules: AlertRule[], events: VerificationEvent[], version = 1): AlertIncrements {
  const { counter, valueOf } = counted(events);
  return alertIncrements(counter, compileAlertRules(version, rules), valueOf, { now: NOW, retention });
}

/** counterId|period start (ISO day)|member -> increment */
function flat(alerts: AlertIncrements): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of alerts.counters) {
    for (const [member, n] of c.members)
      out[`${c.counterId}|${new Date(c.periodStart).toISOString().slice(0, 10)}|${member}`] = n;
  }
  return out;
}

describe('alertIncrements', () => {
  it('no rules: no counters, but the version the script checks', () => {
    expect(increments([], [event({})], 0)).toEqual({ rulesVersion: 0, now: NOW, counters: [] });
  });

  it('counts per counter, UTC period and member: outcomes, all-of tags, each identity, each key', () => {
    const valid = rule({ outcomes: ['VALID'], scope: { kind: 'eachIdentity' } });
    const tagged = rule({ tags: ['a', 'b'], period: 'day' });
    const perKey = rule({ scope: { kind: 'eachKey' }, outcomes: ['RATE_LIMITED', 'VALID'] });
    const alice = { id: 'u1', externalId: 'alice' };
    const events = [
      event({ identity: alice }),
      event({ identity: alice, tags: ['b', 'a', 'c'] }),
      event({ identity: { id: 'u9', externalId: 'alice' }, time: FEB_1, tags: ['a', 'b'] }), // same member
      event({ identity: alice, outcome: 'FORBIDDEN', tags: ['a'] }),
      event({ keyId: 'key_2', outcome: 'RATE_LIMITED', region: 'eu', tags: ['a', 'b'] }), // no identity
    ];
    const [v, t, k] = [valid, tagged, perKey].map(alertCounterId);
    expect(flat(increments([valid, tagged, perKey], events))).toEqual({
      [`${v}|2028-01-01|alice`]: 2,
      [`${v}|2028-02-01|alice`]: 1,
      [`${t}|2028-01-31|`]: 2,
      [`${t}|2028-02-01|`]: 1,
      [`${k}|2028-01-01|key_1`]: 2,
      [`${k}|2028-01-01|key_2`]: 1,
      [`${k}|2028-02-01|key_1`]: 1,
    });
  });

  it('one identity or one key: only that member counts; events without identity never count for identity scopes', () => {
    const bob = rule({ scope: { kind: 'identity', externalId: 'bob' } });
    const key2 = rule({ scope: { kind: 'key', keyId: 'key_2' } });
    const events = [
      event({ identity: { id: 'x', externalId: 'bob' } }),
      event({ identity: { id: 'x', externalId: 'bobby' }, keyId: 'key_2' }),
      event({ keyId: 'key_2' }),
      event({}),
    ];
    expect(flat(increments([bob, key2], events))).toEqual({
      [`${alertCounterId(bob)}|2028-01-01|bob`]: 1,
      [`${alertCounterId(key2)}|2028-01-01|key_2`]: 2,
    });
  });

  it('rules counting the same thing share one counter with all their levels, each naming its rules', () => {
    const a = rule({ scope: { kind: 'eachIdentity' }, levels: [10, 100] });
    const b = rule({ scope: { kind: 'eachIdentity' }, levels: [100, 1000] });
    const events = Array.from({ length: 50 }, (_, n) =>
      event({ identity: { id: 'u', externalId: `m${n % 5}` } }),
    );
    const alerts = increments([a, b], events);
    expect(alerts.counters).toHaveLength(1);
    const [c] = alerts.counters;
    expect(c!.levels).toEqual([10, 100, 1000]);
    const id = alertCounterId(a);
    expect(compileAlertRules(1, [a, b]).levelTable).toEqual(
      new Map([
        [`${id}:10`, [a.ruleId]],
        [`${id}:100`, [a.ruleId, b.ruleId].sort()],
        [`${id}:1000`, [b.ruleId]],
      ]),
    );
    // One increment per member and batch, whatever the number of events.
    expect([...c!.members]).toEqual([0, 1, 2, 3, 4].map((n) => [`m${n}`, 10]));
  });

  it('a counter is kept as long as its period’s rollup; an event of a period whose rollup is gone does not count', () => {
    const day = rule({ period: 'day' });
    const month = rule({ period: 'month' });
    const alerts = increments([day, month], [event({})]);
    expect(alerts.counters.map((c) => [c.period, c.expireAt])).toEqual([
      ['day', FEB + retention.dayMs],
      ['month', FEB + retention.monthMs],
    ]);
    const old = NOW - 450 * DAY; // past the 400 days of day rollups, inside the months'
    expect(flat(increments([day, month], [event({ time: old })]))).toEqual({
      [`${alertCounterId(month)}|2026-11-01|`]: 1,
    });
  });

  it("periods follow the rule's zone; a local period's counter is kept until the rollup of its last hour goes", () => {
    const ny = rule({ period: 'day', timeZone: 'America/New_York' });
    const utc = rule({ period: 'day' });
    const kolkata = rule({ period: 'day', timeZone: 'Asia/Kolkata' });
    // 23:30Z January 31 and 00:30Z February 1 are both January 31 in New York (18:30 and 19:30 EST), and
    // both February 1 in Kolkata (05:00 and 06:00 IST).
    const alerts = increments([ny, utc, kolkata], [event({}), event({ time: FEB_1 })]);
    const byCounter = (r: AlertRule) =>
      alerts.counters
        .filter((c) => c.counterId === alertCounterId(r))
        .map((c) => [new Date(c.periodStart).toISOString(), [...c.members.values()][0], c.expireAt]);
    // New York's January 31 ends at 05:00Z February 1: its last hour is in the UTC day February 1.
    expect(byCounter(ny)).toEqual([['2028-01-31T05:00:00.000Z', 2, FEB + DAY + retention.dayMs]]);
    expect(byCounter(utc)).toEqual([
      ['2028-01-31T00:00:00.000Z', 1, FEB + retention.dayMs],
      ['2028-02-01T00:00:00.000Z', 1, FEB + DAY + retention.dayMs],
    ]);
    expect(byCounter(kolkata)).toEqual([['2028-01-31T18:30:00.000Z', 2, FEB + DAY + retention.dayMs]]);
    // Each zone its own counter, UTC named or not the same one.
    expect(new Set([ny, utc, kolkata].map(alertCounterId)).size).toBe(3);
    expect(alertCounterId({ ...utc, timeZone: 'UTC' })).toBe(alertCounterId(utc));
  });

  it('from zero, the levels the increments reach are the oracle’s crossings (random events and rules)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const tags = ['a', 'b', 'c'];
    const rules = Array.from({ length: 30 }, () =>
      rule({
        scope: [
          { kind: 'api' as const },
          { kind: 'eachIdentity' as const },
          { kind: 'eachKey' as const },
          { kind: 'identity' as const, externalId: `m${random(4)}` },
          { kind: 'key' as const, keyId: `key_${random(3)}` },
        ][random(5)]!,
        ...(random(2) === 0 && { outcomes: [OUTCOMES[random(3)]!] }),
        ...(random(3) === 0 && { tags: [tags[random(3)]!] }),
        period: random(2) === 0 ? 'day' : 'month',
        levels: [1 + random(5), 6 + random(30)],
        timeZone: [undefined, 'UTC', 'America/New_York', 'Asia/Kolkata'][random(4)],
      }),
    );
    const events = Array.from({ length: 400 }, () =>
      event({
        time: FEB - 2 * DAY + random(4 * DAY),
        keyId: `key_${random(3)}`,
        outcome: OUTCOMES[random(3)]!,
        ...(random(4) > 0 && { identity: { id: `u${random(9)}`, externalId: `m${random(4)}` } }),
        tags: tags.filter(() => random(2) === 0),
      }),
    );
    const reached = new Set<string>();
    const table = compileAlertRules(1, rules).levelTable;
    for (const c of increments(rules, events).counters) {
      for (const [member, n] of c.members) {
        for (const level of c.levels) {
          if (level > n) continue;
          for (const ruleId of table.get(`${c.counterId}:${level}`)!)
            reached.add(alertId(ruleId, member, c.periodStart, level));
        }
      }
    }
    const expected = new Set(expectedCrossings(rules, events).keys());
    expect(expected.size).toBeGreaterThan(50);
    expect(reached).toEqual(expected);
  });
});

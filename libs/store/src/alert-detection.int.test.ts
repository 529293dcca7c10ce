// Detection in applyApiBatch against a real Redis (docs/alerts.md "Detection"): the alert counters grow with
// the counts, each level crossed is appended to the crossings stream once, whatever replays it (another
// generation counting again from zero: a rebuild), and a stale rules version writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv, type TestEnv } from '@va/testkit/support';
import type { AlertCrossing } from '@va/contracts';
import { connectTarget, deletePrefix } from './testing';
import type { ApiIncrements } from './aggregate';
import {
  levelField,
  writeAlertLevels,
  type AlertCounterIncrements,
  type AlertIncrements,
} from './alert-detection';
import { createAlertRule } from './alert-rules';
import { decodeCrossing } from './crossing-codec';
import { applyApiBatch } from './scripts/apply-scripts';
import { alertKeys, apiKeys, type KeySpace } from './keys';
import type { RedisClient } from './connection';

let t: TestEnv;
let redis: RedisClient;
let space: KeySpace;

beforeAll(async () => {
  t = await testEnv('store alert detection');
  redis = connectTarget(t.redis);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

const noCounts: ApiIncrements = { buckets: [], events: 0, required: { k: 0, i: 0, s: 0 }, keepUntil: 0 };
const MONTH = Date.parse('2028-02-01T00:00:00Z');
const NOW = Date.parse('2028-02-10T00:00:00Z');
const EXPIRE = Date.parse('2030-03-01T00:00:00Z');
const RULE_A = 'rule_00000000000000000000000a';
const RULE_B = 'rule_00000000000000000000000b';

const COUNTER = 'c0ffee0000000000';
const counter = (members: Record<string, number>): AlertCounterIncrements => ({
  counterId: COUNTER,
  period: 'month',
  periodStart: MONTH,
  expireAt: EXPIRE,
  levels: [2, 3, 9_007_199_254_740_991],
  members: new Map(Object.entries(members)),
});

const alerts = (rulesVersion: number, members: Record<string, number>): AlertIncrements => ({
  rulesVersion,
  now: NOW,
  counters: [counter(members)],
});

async function crossings(apiId: string): Promise<AlertCrossing[]> {
  const entries = await redis.xrange(alertKeys(t.keyPrefix, apiId).crossings, '-', '+');
  return entries.map(([, fields]) => decodeCrossing(apiId, fields));
}
const short = (c: AlertCrossing) => `${c.ruleId.slice(-1)} ${c.member} ${c.level} ${c.count}`;

async function apply(s: KeySpace, apiId: string, off: number | null, a: AlertIncrements) {
  const cas = { offsetField: 'topic/0', expectedOff: off, newOff: (off ?? -1) + 1, expectedCmp: null };
  return (await applyApiBatch(redis, { space: s, apiId, increments: noCounts, cas, alerts: a })).result;
}

/** Two rules sharing the counter, and the level table of their version (as the ingest worker writes it). */
async function withRules(apiId: string): Promise<number> {
  const rule = { apiId, scope: { kind: 'eachIdentity' as const }, period: 'month' as const, createdAt: 0 };
  await createAlertRule(redis, t.keyPrefix, { ...rule, ruleId: RULE_A, levels: [2, 3] });
  const version = await createAlertRule(redis, t.keyPrefix, {
    ...rule,
    ruleId: RULE_B,
    levels: [2, 9_007_199_254_740_991],
  });
  const table = new Map([
    [levelField(COUNTER, 2), [RULE_A, RULE_B]],
    [levelField(COUNTER, 3), [RULE_A]],
    [levelField(COUNTER, 9_007_199_254_740_991), [RULE_B]],
  ]);
  await writeAlertLevels(redis, t.keyPrefix, apiId, version, table);
  return version;
}

describe('applyApiBatch: alert detection', () => {
  it('records each level a member crosses, for every rule with that level, with the count and the clock', async () => {
    const version = await withRules('al_cross');
    expect(await apply(space, 'al_cross', null, alerts(version, { alice: 2, bob: 1 }))).toEqual({
      status: 'ok',
    });
    expect((await crossings('al_cross')).map(short)).toEqual(['a alice 2 2', 'b alice 2 2']);
    expect(await apply(space, 'al_cross', 0, alerts(version, { alice: 5, bob: 1 }))).toEqual({
      status: 'ok',
    });
    expect((await crossings('al_cross')).map(short)).toEqual([
      'a alice 2 2',
      'b alice 2 2',
      'a alice 3 7',
      'a bob 2 2',
      'b bob 2 2',
    ]);
    const [first] = await crossings('al_cross');
    expect(first).toMatchObject({ period: 'month', periodStart: MONTH, detectedAt: NOW, apiId: 'al_cross' });
    const key = apiKeys(space, 'al_cross').alertCounter('c0ffee0000000000', MONTH);
    expect(await redis.hgetall(key)).toEqual({ alice: '7', bob: '2' });
    expect(await redis.pexpiretime(key)).toBe(EXPIRE);
    expect(await redis.pexpiretime(alertKeys(t.keyPrefix, 'al_cross').recorded('month', MONTH))).toBe(EXPIRE);
  });

  it('a level as large as a safe integer is compared and written exactly', async () => {
    const version = await withRules('al_big');
    await apply(space, 'al_big', null, alerts(version, { carol: 9_007_199_254_740_990 }));
    await apply(space, 'al_big', 0, alerts(version, { carol: 1 }));
    expect((await crossings('al_big')).map(short)).toEqual([
      'a carol 2 9007199254740990',
      'b carol 2 9007199254740990',
      'a carol 3 9007199254740990',
      'b carol 9007199254740991 9007199254740991',
    ]);
  });

  it('a crossing found again (a rebuild counting into a new generation from zero) is not appended twice', async () => {
    const version = await withRules('al_again');
    await apply(space, 'al_again', null, alerts(version, { alice: 3 }));
    const before = await crossings('al_again');
    expect(before.map(short)).toEqual(['a alice 2 3', 'b alice 2 3', 'a alice 3 3']);
    const rebuilt = { ...space, generation: space.generation + 1 };
    await apply(rebuilt, 'al_again', null, alerts(version, { alice: 1 }));
    await apply(rebuilt, 'al_again', 0, alerts(version, { alice: 2 }));
    expect(await redis.hgetall(apiKeys(rebuilt, 'al_again').alertCounter('c0ffee0000000000', MONTH))).toEqual(
      {
        alice: '3',
      },
    );
    expect(await crossings('al_again')).toEqual(before);
  });

  it('refuses increments computed with another version of the rules, and writes nothing', async () => {
    const version = await withRules('al_stale');
    expect(await apply(space, 'al_stale', null, alerts(version - 1, { alice: 3 }))).toEqual({
      status: 'rules',
      version,
    });
    expect(await apply(space, 'al_stale', null, alerts(version + 1, { alice: 3 }))).toEqual({
      status: 'rules',
      version,
    });
    expect(await redis.hget(apiKeys(space, 'al_stale').offsets, 'topic/0')).toBeNull();
    expect(await redis.exists(apiKeys(space, 'al_stale').alertCounter('c0ffee0000000000', MONTH))).toBe(0);
    // Without its version's level table (expired), the alerts are refused too: the worker writes it again.
    await redis.del(alertKeys(t.keyPrefix, 'al_stale').levels(version));
    expect(await apply(space, 'al_stale', null, alerts(version, { alice: 3 }))).toEqual({
      status: 'rules',
      version,
    });
    // An API without rules is at version 0.
    expect(await apply(space, 'al_none', null, { rulesVersion: 0, now: NOW, counters: [] })).toEqual({
      status: 'ok',
    });
    expect(await apply(space, 'al_none', 0, { rulesVersion: 1, now: NOW, counters: [] })).toEqual({
      status: 'rules',
      version: 0,
    });
  });
});

// Alert increments beyond the per-call bound, staged with the offset and applied by applyStagedChunk, against a
// real Redis (docs/alerts.md "Detection", docs/store-v2.md "Applies staged in chunks"): a batch with thousands of
// members makes exactly the crossings of an unbounded call, each once, whoever applies its chunks and when.
import { describe, expect, it } from 'vitest';
import type { AlertCrossing } from '@va/contracts';
import type { ApiIncrements } from './aggregate';
import { levelField, writeAlertLevels, type AlertIncrements } from './alert-detection';
import { createAlertRule } from './alert-rules';
import { applyApiBatches, drainStaged } from './apply';
import { decodeCrossing } from './crossing-codec';
import { alertKeys, apiKeys } from './keys';
import { applyApiBatch, applyApiBatchArgs } from './scripts/apply-scripts';
import { fileRedis } from './testing/file-redis';

const db = fileRedis('store-alert-staging');
const { space } = db;

const noCounts: ApiIncrements = { buckets: [], events: 0, required: { k: 0, i: 0, s: 0 }, keepUntil: 0 };
const MONTH = Date.parse('2028-02-01T00:00:00Z');
const DAY = Date.parse('2028-02-10T00:00:00Z');
const EXPIRE = Date.parse('2030-03-01T00:00:00Z');
const [MONTHLY, DAILY] = ['c0ffee0000000001', 'c0ffee0000000002'];
const MAX_WRITES = 100;
const rule = (n: number) => `rule_${String(n).padStart(24, '0')}`;
/** Rule -> its counter and levels: counters shared by several rules, levels shared by several. */
const RULES: [string, string, number[]][] = [
  [rule(1), MONTHLY, [2, 5]],
  [rule(2), MONTHLY, [3, 5]],
  [rule(3), MONTHLY, [8]],
  [rule(4), DAILY, [4]],
  [rule(5), DAILY, [4, 6]],
];
/** 2,500 identities and two members a text layout could lose: the whole API's '' and one with a space and a newline. */
const MEMBERS = ['', 'a b\n', ...Array.from({ length: 2_500 }, (_, n) => `id ${n}`)];

async function withRules(apiId: string, rules = RULES): Promise<number> {
  let version = 0;
  const table = new Map<string, string[]>();
  for (const [ruleId, counterId, levels] of rules) {
    const r = { apiId, ruleId, levels, scope: { kind: 'eachIdentity' as const }, period: 'month' as const };
    version = await createAlertRule(db.redis, db.prefix, { ...r, createdAt: 0 });
    for (const level of levels) {
      const field = levelField(counterId, level);
      table.set(field, [...(table.get(field) ?? []), ruleId]);
    }
  }
  await writeAlertLevels(db.redis, db.prefix, apiId, version, table);
  return version;
}

/** Batch `b` (1, 2) of the API: every member of both counters, with increments that cross levels. */
function batch(version: number, b: number, rules = RULES): AlertIncrements {
  const levels = (counterId: string) =>
    [...new Set(rules.filter(([, c]) => c === counterId).flatMap(([, , l]) => l))].sort((x, y) => x - y);
  const counter = (counterId: string, period: 'day' | 'month', periodStart: number) => ({
    counterId,
    period,
    periodStart,
    expireAt: EXPIRE,
    levels: levels(counterId),
    members: new Map(MEMBERS.map((m, n) => [m, 1 + ((n * (b === 1 ? 1 : 7)) % (b === 1 ? 4 : 5))])),
  });
  return {
    rulesVersion: version,
    now: DAY + b,
    counters: [counter(MONTHLY, 'month', MONTH), counter(DAILY, 'day', DAY)],
  };
}

const cas = (b: number) => ({
  offsetField: 'topic/0',
  expectedOff: b === 1 ? null : b - 1,
  newOff: b,
  expectedCmp: null,
});

/** Batch `b` of `apiId` as one applyApiBatch call bounded to MAX_WRITES (its alert members beyond are staged). */
const boundedCall = (apiId: string, version: number) => (b: number) => ({
  space,
  apiId,
  increments: noCounts,
  cas: cas(b),
  maxWrites: MAX_WRITES,
  alerts: batch(version, b),
});

async function crossings(apiId: string): Promise<AlertCrossing[]> {
  const entries = await db.redis.xrange(alertKeys(db.prefix, apiId).crossings, '-', '+');
  return entries.map(([, fields]) => decodeCrossing(apiId, fields));
}
/** The crossings as the API's delivery sees them, by alert id (each id once), the API's own id left out. */
async function byId(apiId: string, fields: (c: AlertCrossing) => unknown = (c) => ({ ...c, apiId: '' })) {
  const list = await crossings(apiId);
  const ids = new Map(list.map((c) => [c.alertId, fields(c)]));
  expect(ids.size).toBe(list.length);
  return ids;
}
async function counters(apiId: string) {
  const keys = apiKeys(space, apiId);
  return [
    await db.redis.hgetall(keys.alertCounter(MONTHLY, MONTH)),
    await db.redis.hgetall(keys.alertCounter(DAILY, DAY)),
  ];
}
/** The alert id is derived from the rule, level, member and period, never from the API: the same for both APIs. */
const sameIds = (a: Map<string, unknown>, b: Map<string, unknown>) =>
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());

async function applyWhole(apiId: string, batches: number): Promise<void> {
  const version = await withRules(apiId);
  for (let b = 1; b <= batches; b++) {
    const [result] = await applyApiBatches(db.redis, space, [
      { apiId, increments: noCounts, cas: cas(b), alerts: batch(version, b) },
    ]);
    expect(result).toEqual({ status: 'ok' });
  }
}

describe('alert increments staged in chunks', () => {
  it('a batch of thousands of members under a small bound makes the crossings of an unbounded call, each once', async () => {
    await applyWhole('st_whole', 2);
    const version = await withRules('st_bounded');
    const { staged } = applyApiBatchArgs({
      space,
      apiId: 'st_bounded',
      increments: noCounts,
      cas: cas(1),
      maxWrites: MAX_WRITES,
      alerts: batch(version, 1),
    });
    // ~5,000 member increments in chunks of at most 100 writes.
    expect(staged).toBeGreaterThanOrEqual(50);
    for (const b of [1, 2]) {
      const [result] = await applyApiBatches(
        db.redis,
        space,
        [{ apiId: 'st_bounded', increments: noCounts, cas: cas(b), alerts: batch(version, b) }],
        { maxWritesPerCall: MAX_WRITES },
      );
      expect(result).toEqual({ status: 'ok' });
    }
    expect(await db.redis.exists(apiKeys(space, 'st_bounded').stage)).toBe(0);
    const whole = await byId('st_whole');
    expect(whole.size).toBeGreaterThan(5_000);
    // Same ids, and the same count and detectedAt: the chunks of a batch are applied before the next batch.
    expect(await byId('st_bounded')).toEqual(whole);
    expect(await counters('st_bounded')).toEqual(await counters('st_whole'));
  });

  it('chunks left by a writer that died after its call are applied once by whoever drains them', async () => {
    await applyWhole('st_ref', 2);
    const version = await withRules('st_died');
    const bounded = boundedCall('st_died', version);
    // The call alone (as a writer killed before its chunks): the offset moved, most members wait in the stage.
    expect((await applyApiBatch(db.redis, bounded(1))).result).toEqual({ status: 'ok' });
    const stage = apiKeys(space, 'st_died').stage;
    expect(await db.redis.llen(stage)).toBeGreaterThanOrEqual(50);
    const early = await crossings('st_died');
    // The compactor or a rebuild's copy drains it (drainStaged); a second drain finds nothing.
    expect(await drainStaged(db.redis, space, ['st_died'])).toBeGreaterThanOrEqual(50);
    expect(await drainStaged(db.redis, space, ['st_died'])).toBe(0);
    expect((await crossings('st_died')).length).toBeGreaterThan(early.length);
    // Dies again after batch 2's call; the next writer of the API (batch 3 refused by the offset: a replay)
    // leaves it, and the next progress read drains it.
    expect((await applyApiBatch(db.redis, bounded(2))).result).toEqual({ status: 'ok' });
    const [replay] = await applyApiBatches(db.redis, space, [{ ...bounded(1), cas: cas(1) }], {
      maxWritesPerCall: MAX_WRITES,
    });
    expect(replay).toEqual({ status: 'off', actual: 2 });
    await drainStaged(db.redis, space, ['st_died']);
    expect(await db.redis.exists(stage)).toBe(0);
    expect(await byId('st_died')).toEqual(await byId('st_ref'));
    expect(await counters('st_died')).toEqual(await counters('st_ref'));
  });

  it('chunks applied after the next batch (another writer drains them after its own call): the same ids, each once', async () => {
    await applyWhole('st_ref2', 2);
    const version = await withRules('st_late');
    const bounded = boundedCall('st_late', version);
    await applyApiBatch(db.redis, bounded(1));
    const [result] = await applyApiBatches(db.redis, space, [bounded(2)], { maxWritesPerCall: MAX_WRITES });
    expect(result).toEqual({ status: 'ok' });
    expect(await db.redis.exists(apiKeys(space, 'st_late').stage)).toBe(0);
    // A level is crossed by the one increment that passes it, whichever call adds it: the count and clock
    // of a crossing may differ from the unbounded call's, its id not.
    const key = (c: AlertCrossing) => `${c.ruleId} ${c.level} ${c.member}`;
    sameIds(await byId('st_late', key), await byId('st_ref2', key));
    expect(await counters('st_late')).toEqual(await counters('st_ref2'));
  });

  it('a chunk applies the rules of its batch, not those created after it was staged', async () => {
    await applyWhole('st_ref1', 1);
    const version = await withRules('st_rules');
    await applyApiBatch(db.redis, {
      space,
      apiId: 'st_rules',
      increments: noCounts,
      cas: cas(1),
      maxWrites: MAX_WRITES,
      alerts: batch(version, 1),
    });
    // A rule created before the chunks are applied, at a level they cross (known to the chunk, another rule's), with the next version's table.
    const later: [string, string, number[]][] = [...RULES, [rule(6), MONTHLY, [3]]];
    await withRules('st_rules', later);
    await drainStaged(db.redis, space, ['st_rules']);
    expect(await byId('st_rules')).toEqual(await byId('st_ref1'));
  });
});

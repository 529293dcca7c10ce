// Alert rules and crossings on a real Redis: the rules' version moves on every change (what the
// detection's cache compares), and a crossing appended with the codec reads back with its derived id.
import { describe, expect, it } from 'vitest';
import type { AlertRule } from '@va/contracts';
import { alertId } from '@va/core';
import * as rules from './alert-rules';
import { appendCrossing, decodeCrossing } from './crossing-codec';
import { alertGlobalKeys, alertKeys } from './keys';
import { fileRedis } from './testing/file-redis';

const db = fileRedis('alert-rules');
const { prefix } = db;

const rule = (n: number, createdAt: number): AlertRule => ({
  ruleId: `rule_${String(n).padStart(24, '0')}`,
  apiId: 'api:1',
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels: [10, 100],
  createdAt,
});

describe('alert rules', () => {
  it('creates, lists oldest first, finds and deletes rules; every change moves the version', async () => {
    expect(await rules.readAlertRules(db.redis, prefix, 'api:1')).toEqual({ version: 0, rules: [] });
    expect(await rules.createAlertRule(db.redis, prefix, rule(2, 200))).toBe(1);
    expect(
      await rules.createAlertRule(db.redis, prefix, { ...rule(1, 100), outcomes: ['VALID'], tags: ['a'] }),
    ).toBe(2);
    const read = await rules.readAlertRules(db.redis, prefix, 'api:1');
    expect(read.version).toBe(2);
    expect(read.rules.map((r) => r.ruleId)).toEqual([rule(1, 0).ruleId, rule(2, 0).ruleId]);
    expect(read.rules[0]).toEqual({ ...rule(1, 100), outcomes: ['VALID'], tags: ['a'] });
    expect(await rules.countAlertRules(db.redis, prefix, 'api:1')).toBe(2);
    expect(await rules.findAlertRule(db.redis, prefix, 'api:1', rule(2, 0).ruleId)).toEqual(rule(2, 200));
    expect(await rules.findAlertRule(db.redis, prefix, 'api:2', rule(2, 0).ruleId)).toBeNull();
    expect(await rules.deleteAlertRule(db.redis, prefix, 'api:1', rule(2, 0).ruleId)).toBe(true);
    expect(await rules.deleteAlertRule(db.redis, prefix, 'api:1', rule(2, 0).ruleId)).toBe(false);
    expect(await rules.readAlertRulesVersion(db.redis, prefix, 'api:1')).toBe(3);
    expect(await db.redis.smembers(alertGlobalKeys(prefix).apis)).toEqual(['api:1']);
  });

  it('appends a crossing to the API stream that reads back with its alert id', async () => {
    const fields = {
      ruleId: rule(1, 0).ruleId,
      member: 'acme',
      period: 'day' as const,
      periodStart: 86_400_000 * 20_000,
      level: 10,
      count: 12,
      detectedAt: 86_400_000 * 20_000 + 5,
    };
    const id = await appendCrossing(db.redis, prefix, 'api:1', fields);
    const [[entryId, values]] = (await db.redis.xrange(alertKeys(prefix, 'api:1').crossings, '-', '+')) as [
      [string, string[]],
    ];
    expect(entryId).toBe(id);
    expect(decodeCrossing('api:1', values)).toEqual({
      ...fields,
      apiId: 'api:1',
      alertId: alertId(fields.ruleId, 'acme', fields.periodStart, 10),
    });
  });
});

/**
 * The StorePort contract: the CAS rules every store must keep (applyApiBatch.lua and
 * advanceWatermark-1.lua on Redis; fake-store.ts for the ingest core's unit tests), as cases that
 * run against either. fake-store.contract.test.ts runs them against the fake,
 * redis-store.contract.int.test.ts against the Redis adapter, so the fake cannot drift from the
 * scripts unnoticed; a planted fault in the fake fails them (fake-store.contract.test.ts).
 */
import { expect } from 'vitest';
import type { AlertRule } from '@va/contracts';
import type { AlertIncrements, ApiIncrements, CrossingFields, KeySpace, MissingValues } from '@va/store';
import type { PlannedApply, StorePort } from '../src/core/ports';

export interface ContractStore {
  store: StorePort;
  space: KeySpace;
  /** Sets the API's compaction point (cmp), as the compactor does. */
  setCompactedThrough(apiId: string, hour: number): Promise<void>;
  /** Retires the API in this generation for `next`, as a rebuild's switch does. */
  retire(apiId: string, next: number): Promise<void>;
  /** Stores an alert rule as the API's createRule does; returns the rules' new version. */
  createAlertRule(rule: AlertRule): Promise<number>;
  /** The API's crossings stream, oldest first. */
  crossings(apiId: string): Promise<CrossingFields[]>;
  /** Declares a billing zone of the API, as `api register|update --billing-zone` does. */
  declareBillingZone(apiId: string, zone: string): Promise<void>;
  /** The generation's billing zones' since of the API (zone number -> unix ms). */
  billingZoneSince(apiId: string): Promise<Map<number, number>>;
}

export interface ContractCase {
  name: string;
  run(c: ContractStore): Promise<void>;
}

const FIELD = 'topic/0';

const noIncrements = (required: Partial<ApiIncrements['required']> = {}): ApiIncrements => ({
  buckets: [],
  events: 0,
  required: { k: 0, i: 0, s: 0, ...required },
  keepUntil: 0,
});

const missing = (values: Partial<Record<'k' | 'i' | 's', string[]>>): MissingValues => ({
  k: new Set(values.k),
  i: new Set(values.i),
  s: new Set(values.s),
});

const planned = (apiId: string, over: Partial<PlannedApply> = {}): PlannedApply => ({
  apiId,
  increments: noIncrements(),
  offsetField: FIELD,
  expectedOff: null,
  newOff: 9,
  expectedCmp: null,
  ...over,
});

const RULE_A = 'rule_00000000000000000000000a';
const RULE_B = 'rule_00000000000000000000000b';
const MONTH = Date.parse('2028-02-01T00:00:00Z');

const alertRule = (apiId: string, ruleId: string, levels: number[]): AlertRule => ({
  ruleId,
  apiId,
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels,
  createdAt: 0,
});

const COUNTER = '00c0ffee00c0ffee';
/** The level table of RULE_A (levels 2, 3) and RULE_B (level 2), sharing COUNTER. */
const TABLE = new Map([
  [`${COUNTER}:2`, [RULE_A, RULE_B]],
  [`${COUNTER}:3`, [RULE_A]],
]);

/** COUNTER's increments, in February 2028. */
const alerts = (rulesVersion: number, members: Record<string, number>, now = MONTH + 1): AlertIncrements => ({
  rulesVersion,
  now,
  counters: [
    {
      counterId: COUNTER,
      period: 'month',
      periodStart: MONTH,
      expireAt: MONTH + 400 * 86_400_000,
      levels: [2, 3],
      members: new Map(Object.entries(members)),
    },
  ],
});

const crossing = (ruleId: string, member: string, level: number, count: number, detectedAt: number) => ({
  ruleId,
  member,
  period: 'month',
  periodStart: MONTH,
  level,
  count,
  detectedAt,
});

export const STORE_PORT_CONTRACT: readonly ContractCase[] = [
  {
    name: 'registerApis: the first workspace to claim an API owns it; owners come back in order',
    async run({ store }) {
      expect(
        await store.registerApis([
          { apiId: 'c_reg_a', workspaceId: 'ws_1' },
          { apiId: 'c_reg_b', workspaceId: 'ws_2' },
        ]),
      ).toEqual(['ws_1', 'ws_2']);
      expect(await store.registerApis([{ apiId: 'c_reg_a', workspaceId: 'ws_3' }])).toEqual(['ws_1']);
    },
  },
  {
    name: 'readProgress: none before any apply; off after one, per API and partition',
    async run({ store, space }) {
      expect(await store.readProgress(space, FIELD, ['c_prog'])).toEqual({ off: [null], cmp: [null] });
      expect(await store.apply(space, [planned('c_prog', { newOff: 4 })])).toEqual([{ status: 'ok' }]);
      expect(await store.readProgress(space, FIELD, ['c_prog', 'c_prog_other'])).toEqual({
        off: [4, null],
        cmp: [null, null],
      });
      expect(await store.readProgress(space, 'topic/1', ['c_prog'])).toEqual({ off: [null], cmp: [null] });
    },
  },
  {
    name: 'apply: off is compared first; a stale expected off writes nothing and names the actual one',
    async run({ store, space }) {
      expect(await store.apply(space, [planned('c_off', { newOff: 5 })])).toEqual([{ status: 'ok' }]);
      expect(await store.apply(space, [planned('c_off', { newOff: 7 })])).toEqual([
        { status: 'off', actual: 5 },
      ]);
      expect(await store.apply(space, [planned('c_off', { expectedOff: 5, newOff: 7 })])).toEqual([
        { status: 'ok' },
      ]);
      expect((await store.readProgress(space, FIELD, ['c_off'])).off).toEqual([7]);
    },
  },
  {
    name: 'apply: then cmp; a moved compaction point writes nothing and names it',
    async run(c) {
      await c.setCompactedThrough('c_cmp', 100);
      expect(await c.store.apply(c.space, [planned('c_cmp')])).toEqual([{ status: 'cmp', actual: 100 }]);
      expect((await c.store.readProgress(c.space, FIELD, ['c_cmp'])).off).toEqual([null]);
      expect(await c.store.apply(c.space, [planned('c_cmp', { expectedCmp: 100 })])).toEqual([
        { status: 'ok' },
      ]);
      // off before cmp: both stale, off is named.
      expect(await c.store.apply(c.space, [planned('c_cmp')])).toEqual([{ status: 'off', actual: 9 }]);
    },
  },
  {
    name: 'apply: then the dictionaries; codes not assigned yet write nothing and name the dictionary',
    async run({ store, space }) {
      const needsTwoKeys = noIncrements({ k: 2 });
      expect(await store.apply(space, [planned('c_dict', { increments: needsTwoKeys })])).toEqual([
        { status: 'dict', dict: 'k', length: 0 },
      ]);
      const codes = await store.assignCodes(space, new Map([['c_dict', missing({ k: ['key_a', 'key_b'] })]]));
      expect([...codes.get('c_dict')!.k.values()].sort()).toEqual([0, 1]);
      expect(await store.apply(space, [planned('c_dict', { increments: needsTwoKeys })])).toEqual([
        { status: 'ok' },
      ]);
    },
  },
  {
    name: 'assignCodes: a value keeps its code; new values get the next codes',
    async run({ store, space }) {
      const first = await store.assignCodes(space, new Map([['c_codes', missing({ k: ['a'], s: ['x,y'] })]]));
      const again = await store.assignCodes(space, new Map([['c_codes', missing({ k: ['b', 'a'] })]]));
      expect(first.get('c_codes')!.k.get('a')).toBe(0);
      expect(first.get('c_codes')!.s.get('x,y')).toBe(0);
      expect(again.get('c_codes')!.k.get('a')).toBe(0);
      expect(again.get('c_codes')!.k.get('b')).toBe(1);
    },
  },
  {
    name: 'apply: a retired API writes nothing, whatever its CAS, and names the next generation',
    async run(c) {
      expect(await c.store.apply(c.space, [planned('c_retired', { newOff: 3 })])).toEqual([{ status: 'ok' }]);
      await c.retire('c_retired', c.space.generation + 1);
      expect(await c.store.apply(c.space, [planned('c_retired', { expectedOff: 3, newOff: 6 })])).toEqual([
        { status: 'retired', generation: c.space.generation + 1 },
      ]);
    },
  },
  {
    name: 'apply: one outcome per API, in order, each decided on its own',
    async run(c) {
      await c.setCompactedThrough('c_many_b', 7);
      expect(
        await c.store.apply(c.space, [planned('c_many_a'), planned('c_many_b'), planned('c_many_c')]),
      ).toEqual([{ status: 'ok' }, { status: 'cmp', actual: 7 }, { status: 'ok' }]);
    },
  },
  {
    name: 'apply: then the alert rules; alerts of another rules version write nothing and name the version',
    async run(c) {
      expect(await c.store.readAlertRules(['c_rules'])).toEqual([{ version: 0, rules: [] }]);
      const rule = alertRule('c_rules', RULE_A, [2]);
      const version = await c.createAlertRule(rule);
      expect(await c.store.readAlertRules(['c_rules'])).toEqual([{ version, rules: [rule] }]);
      expect(
        await c.store.apply(c.space, [planned('c_rules', { alerts: alerts(version - 1, { alice: 5 }) })]),
      ).toEqual([{ status: 'rules', version }]);
      expect((await c.store.readProgress(c.space, FIELD, ['c_rules'])).off).toEqual([null]);
      // The version's level table is not written yet: refused too.
      expect(
        await c.store.apply(c.space, [planned('c_rules', { alerts: alerts(version, { alice: 5 }) })]),
      ).toEqual([{ status: 'rules', version }]);
      expect(await c.crossings('c_rules')).toEqual([]);
      await c.store.writeAlertLevels([{ apiId: 'c_rules', version, table: TABLE }]);
      expect(
        await c.store.apply(c.space, [planned('c_rules', { alerts: alerts(version, { alice: 5 }) })]),
      ).toEqual([{ status: 'ok' }]);
      // Without alerts the version is not checked.
      expect(await c.store.apply(c.space, [planned('c_rules', { expectedOff: 9, newOff: 10 })])).toEqual([
        { status: 'ok' },
      ]);
    },
  },
  {
    name: 'apply: each level a count crosses is appended once per rule; a recount in another generation appends none',
    async run(c) {
      await c.createAlertRule(alertRule('c_cross', RULE_A, [2, 3]));
      const version = await c.createAlertRule(alertRule('c_cross', RULE_B, [2]));
      await c.store.writeAlertLevels([{ apiId: 'c_cross', version, table: TABLE }]);
      // (The fake keeps one off per API and partition for every generation: the recount uses another partition.)
      const apply = (
        space: KeySpace,
        expectedOff: number | null,
        members: Record<string, number>,
        now: number,
      ) =>
        c.store.apply(space, [
          planned('c_cross', {
            offsetField: space === c.space ? FIELD : 'topic/7',
            expectedOff,
            newOff: (expectedOff ?? 0) + 1,
            alerts: alerts(version, members, now),
          }),
        ]);
      expect(await apply(c.space, null, { alice: 2 }, MONTH + 1)).toEqual([{ status: 'ok' }]);
      expect(await apply(c.space, 1, { alice: 1, bob: 4 }, MONTH + 2)).toEqual([{ status: 'ok' }]);
      const found = [
        crossing(RULE_A, 'alice', 2, 2, MONTH + 1),
        crossing(RULE_B, 'alice', 2, 2, MONTH + 1),
        crossing(RULE_A, 'alice', 3, 3, MONTH + 2),
        crossing(RULE_A, 'bob', 2, 4, MONTH + 2),
        crossing(RULE_B, 'bob', 2, 4, MONTH + 2),
        crossing(RULE_A, 'bob', 3, 4, MONTH + 2),
      ];
      expect(await c.crossings('c_cross')).toEqual(found);
      // A rebuild counts the same events again into a new generation, from zero.
      const next = { ...c.space, generation: c.space.generation + 1 };
      expect(await apply(next, null, { alice: 3, bob: 1 }, MONTH + 3)).toEqual([{ status: 'ok' }]);
      expect(await apply(next, 1, { bob: 3 }, MONTH + 4)).toEqual([{ status: 'ok' }]);
      expect(await c.crossings('c_cross')).toEqual(found);
    },
  },
  {
    name: 'advanceWatermark: a compare-and-set from the expected offset (none = null)',
    async run({ store, space }) {
      expect(await store.readWatermark(space, 'topic', 3)).toBeNull();
      expect(await store.advanceWatermark(space, 'topic', 3, null, 10)).toEqual({ ok: true });
      expect(await store.advanceWatermark(space, 'topic', 3, null, 12)).toEqual({ ok: false, actual: 10 });
      expect(await store.advanceWatermark(space, 'topic', 3, 10, 12)).toEqual({ ok: true });
      expect(await store.readWatermark(space, 'topic', 3)).toBe(12);
    },
  },
  {
    name: 'billing zones: read in declaration order per API; apply records since (0 on the first batch) and moves it past a batch that lacks a zone',
    async run(c) {
      await c.declareBillingZone('c_bz', 'Asia/Kolkata');
      await c.declareBillingZone('c_bz', 'America/New_York');
      expect(await c.store.readBillingZones(['c_bz', 'c_none'])).toEqual([
        ['Asia/Kolkata', 'America/New_York'],
        [],
      ]);
      // Zones 1 and 2 counted by the API's first batch: complete from 0.
      const zones = (n: number) => ({ ...noIncrements(), billingZones: n });
      const applied = await c.store.apply(c.space, [planned('c_bz', { increments: zones(2), newOff: 3 })]);
      expect(applied).toEqual([{ status: 'ok' }]);
      expect(await c.billingZoneSince('c_bz')).toEqual(
        new Map([
          [1, 0],
          [2, 0],
        ]),
      );
      // A batch of a writer that knows zone 1 only: zone 2 is complete only after its events (its clock plus
      // the 5 minutes an event may lie ahead, and a minute for clocks).
      const before = Date.now();
      await c.store.apply(c.space, [planned('c_bz', { increments: zones(1), expectedOff: 3, newOff: 4 })]);
      const raised = (await c.billingZoneSince('c_bz')).get(2)!;
      expect(raised).toBeGreaterThanOrEqual(before - 1000 + 360_000);
      expect(raised).toBeLessThanOrEqual(Date.now() + 360_000);
      expect((await c.billingZoneSince('c_bz')).get(1)).toBe(0);
      // A third zone first counted by a later batch: from then on, not from 0.
      await c.store.apply(c.space, [planned('c_bz', { increments: zones(3), expectedOff: 4, newOff: 5 })]);
      expect((await c.billingZoneSince('c_bz')).get(3)).toBeGreaterThanOrEqual(before - 1000 + 360_000);
      // No event counted (-1): nothing recorded.
      await c.store.apply(c.space, [planned('c_other', { increments: zones(-1) })]);
      expect(await c.billingZoneSince('c_other')).toEqual(new Map());
      expect(await c.billingZoneSince('c_none')).toEqual(new Map());
    },
  },
  {
    name: 'confirmApplied: an offset the store holds is confirmed',
    async run({ store, space }) {
      expect(await store.apply(space, [planned('c_confirm', { newOff: 1 })])).toEqual([{ status: 'ok' }]);
      expect(await store.confirmApplied(space, [{ apiId: 'c_confirm', offsetField: FIELD, off: 1 }])).toEqual(
        [{ status: 'ok' }],
      );
    },
  },
];

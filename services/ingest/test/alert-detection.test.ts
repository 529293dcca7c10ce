// Detection through the ingest core (core/batch-protocol.ts, core/alert-increments.ts) over the in-memory store,
// which detects as applyApiBatch does (held to it by the StorePort contract): the crossings equal the oracle's,
// a replayed batch or a crash mid-pipeline appends nothing twice, and a rule created between batches is seen by
// the next apply (the store refuses alerts of another rules version, the core reads the rules again).
import { describe, expect, it } from 'vitest';
import type { AlertRule, VerificationEvent } from '@va/contracts';
import { alertId, DAY_MS, expectedCrossings } from '@va/core';
import type { CrossingFields } from '@va/store';
import { BatchProtocol } from '../src/core/batch-protocol';
import type { PartitionBatch } from '../src/core/types';
import { FakeStore } from './fake-store';

const NOW = Date.UTC(2026, 10, 20, 12, 0);
const RETENTION = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
const TOPIC = 'events';

const event = (n: number): VerificationEvent => ({
  requestId: `r${n}`,
  // Late ones too: the last ten days of October and November, out of order.
  time: NOW - ((n * 7919) % (30 * DAY_MS)) - (n % 3) * 60_000,
  workspaceId: 'ws_1',
  apiId: n % 5 === 0 ? 'api_b' : 'api_a',
  keyId: `key_${n % 4}`,
  outcome: n % 6 === 0 ? 'RATE_LIMITED' : 'VALID',
  ...(n % 7 !== 0 && { identity: { id: `id_${n % 11}`, externalId: `user_${n % 11}` } }),
  tags: n % 2 === 0 ? ['plan:pro'] : [],
});

function batch(events: readonly VerificationEvent[], first: number): PartitionBatch {
  const messages = events.map((e, n) => ({
    offset: String(first + n),
    key: Buffer.from(e.apiId),
    value: Buffer.from(JSON.stringify(e)),
    timestamp: String(NOW),
  }));
  return { topic: TOPIC, partition: 0, messages, lastOffset: first + events.length - 1 };
}

const worker = (store: FakeStore) =>
  new BatchProtocol({
    store,
    prefix: 't',
    retention: RETENTION,
    clock: () => NOW,
    deadLetter: () => Promise.resolve(),
  });

let ruleNo = 0;
const rule = (over: Partial<AlertRule>): AlertRule => ({
  ruleId: `rule_${(++ruleNo).toString(16).padStart(24, '0')}`,
  apiId: 'api_a',
  scope: { kind: 'eachIdentity' },
  period: 'month',
  levels: [3, 10, 40],
  createdAt: 0,
  ...over,
});

const ids = (apiId: string, crossings: ReadonlyMap<string, CrossingFields[]>) =>
  (crossings.get(apiId) ?? []).map((c) => alertId(c.ruleId, c.member, c.periodStart, c.level));

const RULES = [
  rule({}),
  rule({ outcomes: ['VALID'], tags: ['plan:pro'], period: 'day', levels: [1, 2, 5] }),
  rule({ scope: { kind: 'eachKey' }, levels: [20, 60] }),
  rule({ scope: { kind: 'api' }, levels: [100, 150] }),
  rule({ scope: { kind: 'identity', externalId: 'user_3' }, levels: [5] }),
  rule({ apiId: 'api_b', scope: { kind: 'key', keyId: 'key_1' }, period: 'day', levels: [1, 3] }),
];

describe('alert detection through the batch protocol', () => {
  it('appends exactly the crossings the oracle finds, each once, whatever is replayed', async () => {
    const store = new FakeStore();
    for (const r of RULES) store.createAlertRule(r);
    const events = Array.from({ length: 400 }, (_, n) => event(n));
    const p = worker(store);
    let wm: number | null = null;
    for (let first = 0; first < events.length; first += 50) {
      expect(await p.process(batch(events.slice(first, first + 50), first), wm)).toMatchObject({
        status: 'applied',
      });
      wm = first + 49;
    }
    // A worker that believes nothing was applied replays everything: every event is skipped by the API's
    // offset (then its watermark CAS fails), nothing is counted twice, nothing appended.
    const counted = new Map(store.counted);
    expect(await worker(store).process(batch(events, 0), null)).toMatchObject({
      status: 'conflict',
      cause: 'wm',
    });
    expect(store.counted).toEqual(counted);

    const expected = expectedCrossings(RULES, events);
    expect(expected.size).toBeGreaterThan(40);
    const found = [...ids('api_a', store.crossings), ...ids('api_b', store.crossings)];
    expect(new Set(found).size).toBe(found.length);
    expect(new Set(found)).toEqual(new Set(expected.keys()));
  });

  it('a crash mid-pipeline and the retry append nothing twice', async () => {
    const store = new FakeStore();
    for (const r of RULES) store.createAlertRule(r);
    const events = Array.from({ length: 200 }, (_, n) => event(n));
    store.crashAfterApplies = 1; // api_a applied, api_b not
    await expect(worker(store).process(batch(events, 0), null)).rejects.toThrow();
    expect(await worker(store).process(batch(events, 0), null)).toMatchObject({ status: 'applied' });
    const found = [...ids('api_a', store.crossings), ...ids('api_b', store.crossings)];
    expect(new Set(found).size).toBe(found.length);
    expect(new Set(found)).toEqual(new Set(expectedCrossings(RULES, events).keys()));
  });

  it('a rule created between two batches counts from the next one: its apply is refused once, then redone', async () => {
    const store = new FakeStore();
    const p = worker(store);
    const events = Array.from({ length: 40 }, (_, n) => ({ ...event(n), apiId: 'api_a', time: NOW }));
    expect(await p.process(batch(events.slice(0, 20), 0), null)).toMatchObject({ status: 'applied' });
    expect(store.crossings.size).toBe(0);
    const late = rule({ scope: { kind: 'api' }, levels: [5, 20, 21] });
    store.createAlertRule(late);
    const applies = store.calls.applyScripts;
    expect(await p.process(batch(events.slice(20), 20), 19)).toMatchObject({
      status: 'applied',
      applied: 20,
    });
    expect(store.calls.applyScripts - applies).toBe(2); // refused (rules), then applied
    // The rule's counter starts with it: 20 events after its creation reach 5 and 20, not 21.
    expect((store.crossings.get('api_a') ?? []).map((c) => [c.level, c.count])).toEqual([
      [5, 20],
      [20, 20],
    ]);
  });
});

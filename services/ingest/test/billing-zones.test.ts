// Billing zones in the ingest core (core/billing-zones.ts, batch-protocol.ts) over the in-memory store: an API's
// declared zones are read with the batch's deferred events, cached BILLING_ZONE_CACHE_MS (renewed in the background past half of it), and its events inside
// an edge counted in the edge bucket; the zone's since is recorded once per generation before the apply; an API
// without zones gets no edge bucket and no since.
import { describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '@va/core';
import { BatchProtocol } from '../src/core/batch-protocol';
import { BILLING_ZONE_CACHE_MS } from '../src/core/billing-zones';
import { MAX_FUTURE_MS } from '../src/decode';
import type { BatchMessage, PartitionBatch } from '../src/core/types';
import { FakeStore } from './fake-store';

const NOW = Date.UTC(2026, 10, 20, 12, 0);
// 04:00 UTC: inside New York's head [00:00, 05:00) of November 20 (EST), outside Kolkata's tail [18:30, 24:00).
const TIME = Date.UTC(2026, 10, 20, 4, 0);
const RETENTION = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };

function message(offset: number, apiId: string): BatchMessage {
  const event = {
    requestId: `r${offset}`,
    time: TIME,
    workspaceId: 'ws_1',
    apiId,
    keyId: 'key',
    outcome: 'VALID',
  };
  return {
    offset: String(offset),
    key: Buffer.from(apiId),
    value: Buffer.from(JSON.stringify(event)),
    timestamp: String(TIME + 1_000),
  };
}

function batch(first: number, apis: string[]): PartitionBatch {
  const messages = apis.map((apiId, n) => message(first + n, apiId));
  return { topic: 'events', partition: 0, messages, lastOffset: first + apis.length - 1 };
}

describe('billing zones in the batch protocol', () => {
  it('counts edges of declared zones only, tells the store which zones it counted, re-reads zones after the cache bound', async () => {
    const store = new FakeStore();
    store.billingZones.set('a', ['Asia/Kolkata', 'America/New_York']);
    const reads: string[][] = [];
    const read = store.readBillingZones.bind(store);
    store.readBillingZones = (apiIds) => (reads.push([...apiIds]), read(apiIds));
    const clock = { now: NOW };
    const p = new BatchProtocol({
      store,
      prefix: 't',
      retention: RETENTION,
      clock: () => clock.now,
      deadLetter: () => Promise.resolve(),
    });

    expect(await p.process(batch(0, ['a', 'b', 'a']), null)).toMatchObject({ status: 'applied', applied: 3 });
    expect([...store.resolutions.get('a')!].sort()).toEqual(['h', 'z2d']);
    expect([...store.resolutions.get('b')!]).toEqual(['h']);
    // Both zones counted by the API's first batch: complete from 0 (the store's rule, applyApiBatch.lua's).
    expect(store.billingZoneSinces).toEqual(
      new Map([
        ['1|a|1', 0],
        ['1|a|2', 0],
      ]),
    );
    expect(reads).toEqual([['a', 'b']]);

    // Within half the cache bound: no read, no since again.
    clock.now += BILLING_ZONE_CACHE_MS / 2 - 1;
    expect(await p.process(batch(3, ['a', 'b']), 2)).toMatchObject({ status: 'applied', applied: 2 });
    expect(reads).toHaveLength(1);

    // Past half of it: read again in the background (its events counted with the list cached); a third zone
    // declared meanwhile is counted from then on, from its own since, with no event deferred.
    clock.now += 1;
    store.billingZones.set('a', ['Asia/Kolkata', 'America/New_York', 'America/Chicago']);
    const refreshedAt = clock.now;
    expect(await p.process(batch(5, ['a', 'b']), 4)).toMatchObject({ status: 'applied', applied: 2 });
    expect(reads).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    // The first read expired, the background one not: counted at once (and renewed in the background again).
    clock.now = NOW + BILLING_ZONE_CACHE_MS + 1;
    const deferred = vi.spyOn(store, 'readProgress');
    expect(await p.process(batch(7, ['a', 'b']), 6)).toMatchObject({ status: 'applied', applied: 2 });
    expect(reads).toHaveLength(3);
    expect(deferred).not.toHaveBeenCalled();
    // Zone 3 first counted by a later batch: from then on (the clock plus 6 minutes), not from 0.
    expect(store.billingZoneSinces.get('1|a|3')).toBeGreaterThanOrEqual(refreshedAt + MAX_FUTURE_MS);
    expect(store.billingZoneSinces.get('1|a|1')).toBe(0);
    expect([...store.resolutions.get('a')!].sort()).toEqual(['h', 'z2d', 'z3d']);
  });
});

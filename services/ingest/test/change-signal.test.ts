// The change signal of the batch protocol (core/batch-protocol.ts, docs/design.md "Live updates"): one
// signal per committed batch, naming each API the batch changed, and only once the watermark moved.
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '@va/core';
import { BatchProtocol } from '../src/core/batch-protocol';
import type { BatchMessage, PartitionBatch } from '../src/core/types';
import { FakeStore } from './fake-store';

const NOW = Date.UTC(2026, 10, 20, 12, 0);
const RETENTION = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };

function batch(first: number, apis: string[]): PartitionBatch {
  const messages: BatchMessage[] = apis.map((apiId, n) => {
    const time = NOW - 60_000;
    const event = {
      requestId: `r${first + n}`,
      time,
      workspaceId: 'ws_1',
      apiId,
      keyId: 'k',
      outcome: 'VALID',
    };
    return {
      offset: String(first + n),
      key: Buffer.from(apiId),
      value: Buffer.from(JSON.stringify(event)),
      timestamp: String(time),
    };
  });
  return { topic: 'events', partition: 0, messages, lastOffset: first + apis.length - 1 };
}

const protocol = (store: FakeStore) =>
  new BatchProtocol({
    store,
    prefix: 't',
    retention: RETENTION,
    clock: () => NOW,
    deadLetter: () => Promise.resolve(),
  });

describe('the change signal', () => {
  it('is published once per committed batch, naming each API it changed', async () => {
    const store = new FakeStore();
    const p = protocol(store);
    await p.process(batch(0, ['a', 'b', 'a']), null);
    expect(store.published).toEqual([{ generation: 1, apiIds: ['a', 'b'] }]);
  });

  it('is not published when the watermark CAS fails (another writer owns the partition)', async () => {
    const store = new FakeStore();
    const p = protocol(store);
    store.wms.set('events/0', 99); // someone else moved it
    const outcome = await p.process(batch(100, ['a']), 5);
    expect(outcome.status).toBe('conflict');
    expect(store.published).toEqual([]);
  });

  it('is not published for a batch that changed nothing (every event already applied)', async () => {
    const store = new FakeStore();
    const p = protocol(store);
    await p.process(batch(0, ['a']), null);
    await p.process(batch(0, ['a']), null); // a replay: off[a] already covers it
    expect(store.published).toHaveLength(1);
  });
});

// Unit tests of the ingest core's exactly-once protocol (core/batch-protocol.ts) over the in-memory
// store: CAS failures mid-batch, a replay after a crash between two APIs, a rebalance with batches
// in flight, stale caches. The same scenarios against real Redis and Kafka: exactly-once.int.test.ts.
import { describe, expect, it } from 'vitest';
import { DAY_MS, hourOf } from '@va/core';
import { BatchProtocol } from '../src/core/batch-protocol';
import type { BatchMessage, Offset, PartitionBatch } from '../src/core/types';
import type { DeadLetter } from '../src/dead-letter';
import { FakeStore } from './fake-store';

const NOW = Date.UTC(2026, 10, 20, 12, 0);
const MIN = 60_000;
const RETENTION = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 1830 * DAY_MS };
const TOPIC = 'events';

function message(
  offset: number,
  apiId: string,
  options: { time?: number; receivedAt?: number; ws?: string } = {},
): BatchMessage {
  const time = options.time ?? NOW - 10 * MIN;
  const event = {
    requestId: `r${offset}`,
    time,
    workspaceId: options.ws ?? 'ws_1',
    apiId,
    keyId: `key_${offset % 3}`,
    outcome: 'VALID',
  };
  return {
    offset: String(offset),
    key: Buffer.from(apiId),
    value: Buffer.from(JSON.stringify(event)),
    timestamp: String(options.receivedAt ?? time + 1_000),
  };
}

/** A batch of `apis[n % apis.length]` events at offsets first..first+count-1. */
function batch(first: number, count: number, apis: string[]): PartitionBatch {
  const messages = Array.from({ length: count }, (_, n) => message(first + n, apis[n % apis.length]!));
  return { topic: TOPIC, partition: 0, messages, lastOffset: first + count - 1 };
}

function worker(store: FakeStore, clock = { now: NOW }) {
  const dead: DeadLetter[] = [];
  const p = new BatchProtocol({
    store,
    prefix: 't',
    retention: RETENTION,
    clock: () => clock.now,
    deadLetter: (records) => {
      dead.push(...records);
      return Promise.resolve();
    },
  });
  return { p, dead };
}

const wmOf = (store: FakeStore): Offset => store.wms.get(`${TOPIC}/0`) ?? null;

describe('the batch protocol', () => {
  it('counts a batch once per API with one apply per API and moves the watermark', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    expect(await p.process(batch(0, 10, ['a', 'b']), null)).toMatchObject({ status: 'applied', applied: 10 });
    expect(store.counted).toEqual(
      new Map([
        ['a', 5],
        ['b', 5],
      ]),
    );
    expect(store.calls.applyScripts).toBe(2);
    expect(wmOf(store)).toBe(9);
    // The next batch: everything cached, no progress read.
    const reads = store.calls.progress;
    expect(await p.process(batch(10, 4, ['a', 'b']), 9)).toMatchObject({ status: 'applied', applied: 4 });
    expect(store.calls.progress).toBe(reads);
    expect(wmOf(store)).toBe(13);
  });

  it('an off CAS failure mid-batch stops the batch before the watermark; the replay counts the rest once', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    await p.process(batch(0, 4, ['a', 'b']), null);
    // Another writer (a worker that took the partition over) applied b's events of 4..7 meanwhile.
    store.beforeApply = (apply) => {
      if (apply.apiId === 'b' && apply.newOff === 7) {
        store.offs.get('b')!.set(apply.offsetField, 7);
        store.counted.set('b', store.counted.get('b')! + 2);
      }
    };
    const outcome = await p.process(batch(4, 4, ['a', 'b']), 3);
    expect(outcome).toMatchObject({ status: 'conflict', cause: 'off' });
    expect(store.offOf('a', `${TOPIC}/0`)).toBe(7); // a was applied before b failed
    expect(wmOf(store)).toBe(3);

    // Resync: the wm from the store, the batch again. a and b are both skipped now.
    store.beforeApply = undefined;
    const wm = await p.readWatermark(TOPIC, 0);
    expect(await p.process(batch(4, 4, ['a', 'b']), wm)).toMatchObject({
      status: 'applied',
      applied: 0,
      skipped: 4,
    });
    expect(wmOf(store)).toBe(7);
    expect(store.counted).toEqual(
      new Map([
        ['a', 4],
        ['b', 4],
      ]),
    );
  });

  it('a cmp CAS failure mid-batch re-splits that API with the new cmp and applies it', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    await p.process(batch(0, 2, ['a', 'b']), null);
    // The compactor merges the events' hour between prepare and commit.
    const prepared = await p.prepare(batch(2, 4, ['a', 'b']), 1);
    if (prepared.status !== 'prepared') throw new Error(prepared.detail);
    const hour = hourOf(NOW - 10 * MIN);
    store.cmps.set('b', hour);
    expect(await p.commit(prepared, 1)).toMatchObject({ status: 'applied', applied: 4 });
    expect(store.counted).toEqual(
      new Map([
        ['a', 3],
        ['b', 3],
      ]),
    );
    // b's retry was split with the new cmp: its events go to the day and month rollups too.
    expect(store.resolutions.get('a')).toEqual(new Set(['h']));
    expect(store.resolutions.get('b')).toEqual(new Set(['h', 'd', 'm']));
    expect(wmOf(store)).toBe(5);
  });

  it('a replay after a crash between two APIs of one batch counts each event once', async () => {
    const store = new FakeStore();
    const first = worker(store);
    await first.p.process(batch(0, 6, ['a', 'b', 'c']), null);
    // The next batch: a is applied, then the worker dies (b, c and the watermark never written).
    store.crashAfterApplies = 1;
    await expect(first.p.process(batch(6, 6, ['a', 'b', 'c']), 5)).rejects.toThrow(/mid-pipeline/);
    expect(store.counted).toEqual(
      new Map([
        ['a', 4],
        ['b', 2],
        ['c', 2],
      ]),
    );
    expect(wmOf(store)).toBe(5);

    // A new worker (empty caches) resumes from the watermark and gets the same batch again.
    const second = worker(store);
    const wm = await second.p.readWatermark(TOPIC, 0);
    expect(wm).toBe(5);
    expect(await second.p.process(batch(6, 6, ['a', 'b', 'c']), wm)).toMatchObject({
      status: 'applied',
      applied: 4,
      skipped: 2,
    });
    expect(store.counted).toEqual(
      new Map([
        ['a', 4],
        ['b', 4],
        ['c', 4],
      ]),
    );
    expect(wmOf(store)).toBe(11);
  });

  it('#39 item 2: a retry that finds its batch applied moves the watermark only once a replica holds it', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    store.replicasDown = true;
    // Applied on the master, the replica wait fails: the watermark stays.
    await expect(p.process(batch(0, 10, ['a', 'b']), null)).rejects.toThrow(/WAIT/);
    expect(store.counted).toEqual(
      new Map([
        ['a', 5],
        ['b', 5],
      ]),
    );
    // The retry (the worker resyncs: the partition's offsets are read again) finds every event applied.
    p.forgetPartition(TOPIC, 0);
    await expect(p.process(batch(0, 10, ['a', 'b']), null)).rejects.toThrow(/WAIT/);
    expect(store.calls.confirm).toBe(1);
    expect(wmOf(store)).toBe(null);
    // A failover lost a's writes between the progress read and the confirmation: a conflict, and the next
    // retry applies a's events again.
    store.replicasDown = false;
    p.forgetPartition(TOPIC, 0);
    store.beforeConfirm = () => {
      store.offs.get('a')!.delete(`${TOPIC}/0`);
      store.counted.set('a', 0);
      store.beforeConfirm = undefined;
    };
    expect(await p.process(batch(0, 10, ['a', 'b']), null)).toMatchObject({
      status: 'conflict',
      cause: 'off',
    });
    expect(wmOf(store)).toBe(null);
    p.forgetPartition(TOPIC, 0);
    expect(await p.process(batch(0, 10, ['a', 'b']), null)).toMatchObject({
      status: 'applied',
      applied: 5,
      skipped: 5,
    });
    expect(store.counted).toEqual(
      new Map([
        ['a', 5],
        ['b', 5],
      ]),
    );
    expect(wmOf(store)).toBe(9);
    expect(store.calls.confirm).toBe(3);
  });

  it("a rebalance with batches in flight: the old owner's commits fail their CAS, nothing counts twice", async () => {
    const store = new FakeStore();
    const old = worker(store);
    await old.p.process(batch(0, 4, ['a', 'b']), null);
    // The old owner prepared two batches (pipelined) and is slow to commit them.
    const p1 = await old.p.prepare(batch(4, 4, ['a', 'b']), 3);
    const p2 = await old.p.prepare(batch(8, 4, ['a', 'b']), 7);
    if (p1.status !== 'prepared' || p2.status !== 'prepared') throw new Error('not prepared');

    // The partition moves to a new owner, which resumes from the watermark and gets ahead.
    const next = worker(store);
    let wm = await next.p.readWatermark(TOPIC, 0);
    for (const first of [4, 8]) {
      expect(await next.p.process(batch(first, 4, ['a', 'b']), wm)).toMatchObject({
        status: 'applied',
        applied: 4,
      });
      wm = first + 3;
    }

    // The old owner's in-flight commits now run: both fail, nothing is written.
    expect(await old.p.commit(p1, 3)).toMatchObject({ status: 'conflict', cause: 'off' });
    expect(await old.p.commit(p2, 7)).toMatchObject({ status: 'conflict', cause: 'off' });
    expect(store.counted).toEqual(
      new Map([
        ['a', 6],
        ['b', 6],
      ]),
    );
    expect(wmOf(store)).toBe(11);
  });

  it('a rebalance where the old owner commits first: the new owner skips what it applied', async () => {
    const store = new FakeStore();
    const old = worker(store);
    const next = worker(store);
    await old.p.process(batch(0, 4, ['a', 'b']), null);
    // The new owner read wm = 3 at its join, before the old owner's last commit landed.
    const stale = await next.p.readWatermark(TOPIC, 0);
    await old.p.process(batch(4, 4, ['a', 'b']), 3);
    // Its first batch is 4..7 again (sought to stale + 1): the wm CAS says someone moved on.
    expect(await next.p.process(batch(4, 4, ['a', 'b']), stale)).toMatchObject({ status: 'conflict' });
    const wm = await next.p.readWatermark(TOPIC, 0);
    expect(await next.p.process(batch(8, 2, ['a', 'b']), wm)).toMatchObject({
      status: 'applied',
      applied: 2,
    });
    expect(store.counted).toEqual(
      new Map([
        ['a', 5],
        ['b', 5],
      ]),
    );
  });

  it('a store that lost dictionary entries: the dict CAS fails, the caches start over, the retry counts', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    await p.process(batch(0, 3, ['a']), null);
    // Redis restarted from an older AOF without noticing the connection drop: codes are gone.
    store.dicts.get('a')!.k.length = 0;
    expect(await p.process(batch(3, 3, ['a']), 2)).toMatchObject({ status: 'conflict', cause: 'dict' });
    expect(await p.process(batch(3, 3, ['a']), 2)).toMatchObject({ status: 'applied', applied: 3 });
    expect(store.counted.get('a')).toBe(6);
  });

  it('an API retired by a rebuild stops the batch before the watermark; nothing of it is written', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    store.retired.add('b');
    expect(await p.process(batch(0, 4, ['a', 'b']), null)).toMatchObject({
      status: 'conflict',
      cause: 'retired',
    });
    expect(store.counted.get('b')).toBeUndefined();
    expect(wmOf(store)).toBeNull();
  });

  it('a closed connection drops every cache: progress is read again', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    await p.process(batch(0, 2, ['a']), null);
    const reads = store.calls.progress;
    store.closeConnection();
    await p.process(batch(2, 2, ['a']), 1);
    expect(store.calls.progress).toBe(reads + 1);
    expect(store.counted.get('a')).toBe(4);
  });

  it('a detached processor no longer listens to the store: nothing of it stays behind', async () => {
    const store = new FakeStore();
    const { p } = worker(store);
    let resets = 0;
    p.onReset(() => resets++);
    store.closeConnection();
    expect(resets).toBe(1);
    p.detach();
    store.closeConnection();
    expect(resets).toBe(1);
  });
});

describe('one verdict per record (decided once, whatever the clock says on replay)', () => {
  it('a record counted before its retention ended is skipped on replay, not dead-lettered as expired', async () => {
    const store = new FakeStore();
    const retention = { hourMs: 40 * DAY_MS, dayMs: 40 * DAY_MS, monthMs: 40 * DAY_MS };
    const clock = { now: NOW };
    const mk = (s: FakeStore) =>
      new BatchProtocol({
        store: s,
        prefix: 't',
        retention,
        clock: () => clock.now,
        deadLetter: () => Promise.resolve(),
      });
    const b: PartitionBatch = { topic: TOPIC, partition: 0, messages: [message(0, 'a')], lastOffset: 0 };
    expect(await mk(store).process(b, null)).toMatchObject({ status: 'applied', applied: 1 });
    store.wms.clear(); // the crash lost the watermark
    clock.now = NOW + 80 * DAY_MS;
    const dead: DeadLetter[] = [];
    const again = new BatchProtocol({
      store,
      prefix: 't',
      retention,
      clock: () => clock.now,
      deadLetter: (records) => {
        dead.push(...records);
        return Promise.resolve();
      },
    });
    expect(await again.process(b, null)).toMatchObject({
      status: 'applied',
      applied: 0,
      skipped: 1,
      deadLettered: 0,
    });
    expect(dead).toEqual([]);
    expect(store.counted.get('a')).toBe(1);
  });

  it('a record in the future by its Kafka timestamp stays dead-lettered when the clock caught up', async () => {
    const store = new FakeStore();
    const clock = { now: NOW };
    const b: PartitionBatch = {
      topic: TOPIC,
      partition: 0,
      messages: [message(0, 'a', { time: NOW + 5 * MIN + 30_000, receivedAt: NOW })],
      lastOffset: 0,
    };
    const first = worker(store, clock);
    await first.p.prepare(b, null); // dead-lettered, then the worker died before the watermark
    clock.now = NOW + 10 * MIN;
    const second = worker(store, clock);
    expect(await second.p.process(b, null)).toMatchObject({ status: 'applied', applied: 0, deadLettered: 1 });
    expect([...first.dead, ...second.dead].map((d) => d.reason)).toEqual(['future_time', 'future_time']);
    expect(store.counted.get('a')).toBeUndefined();
  });

  it("an event naming another workspace than its API's owner is dead-lettered", async () => {
    const store = new FakeStore();
    const { p, dead } = worker(store);
    const b: PartitionBatch = {
      topic: TOPIC,
      partition: 0,
      messages: [message(0, 'a'), message(1, 'a', { ws: 'ws_2' })],
      lastOffset: 1,
    };
    expect(await p.process(b, null)).toMatchObject({ status: 'applied', applied: 1, deadLettered: 1 });
    expect(dead.map((d) => [d.offset, d.reason])).toEqual([['1', 'workspace_mismatch']]);
  });
});

import { describe, expect, it } from 'vitest';
import { PartitionState } from './partition-state';

describe('PartitionState', () => {
  it('is unknown until a resync read the watermark, then expects wm + 1', () => {
    const st = new PartitionState();
    expect(st.check(0, 9)).toEqual({ action: 'resync', cause: 'unknown-wm' });
    expect(st.resynced(st.beginResync(), null)).toBe(true);
    expect(st.check(0, 9)).toEqual({ action: 'process', wm: null, gap: false });
    expect(st.queued(st.lineage, 9)).toBe(true);
    expect(st.position).toBe(9);
    expect(st.check(10, 19)).toEqual({ action: 'process', wm: 9, gap: false });
  });

  it('a batch fetched past the position seeks back, unless it follows a seek (Kafka dropped those offsets)', () => {
    const st = new PartitionState();
    st.resynced(st.beginResync(), 99);
    expect(st.check(150, 200)).toEqual({ action: 'process', wm: 99, gap: true }); // right after the seek
    st.queued(st.lineage, 200);
    expect(st.check(260, 300)).toEqual({ action: 'resync', cause: 'position' }); // not after a seek
  });

  it('a batch already covered is ignored', () => {
    const st = new PartitionState();
    st.resynced(st.beginResync(), 50);
    expect(st.check(40, 50)).toEqual({ action: 'ignore' });
  });

  it('a rebalance with batches in flight: invalidation drops the queued commits of the old lineage', () => {
    const st = new PartitionState();
    st.resynced(st.beginResync(), 9);
    const lineage = st.lineage;
    st.queued(lineage, 19); // batch 10..19 queued
    st.queued(lineage, 29); // batch 20..29 prepared meanwhile
    // The first commit failed its CAS (another worker owns the partition now): resync.
    const resync = st.beginResync();
    expect(st.lineage).not.toBe(lineage); // the queued commit of 20..29 sees this and is dropped
    expect(st.queued(lineage, 39)).toBe(false); // a batch prepared in the old lineage is not queued
    expect(st.position).toBeUndefined();
    expect(st.resynced(resync, 19)).toBe(true);
    expect(st.check(20, 29)).toEqual({ action: 'process', wm: 19, gap: false });
  });

  it('a resync overtaken by a later one changes nothing', () => {
    const st = new PartitionState();
    const first = st.beginResync();
    const second = st.beginResync();
    expect(st.resynced(first, 5)).toBe(false);
    expect(st.position).toBeUndefined();
    expect(st.resynced(second, 7)).toBe(true);
    expect(st.position).toBe(7);
  });
});

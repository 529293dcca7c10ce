import { describe, expect, it } from 'vitest';
import { BoundedBuffer } from './buffer';

const item = (id: number, bytes = 10) => ({ id, bytes });
const noWaiter = { admit: () => undefined, drop: () => undefined };

describe('BoundedBuffer', () => {
  it('admits up to the event bound, then lines up and admits in order as batches release', () => {
    const buffer = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 2, maxBytes: 1000 });
    expect(buffer.offer(item(1), noWaiter)).toBe(true);
    expect(buffer.offer(item(2), noWaiter)).toBe(true);
    const admitted: number[] = [];
    expect(buffer.offer(item(3), { admit: () => admitted.push(3), drop: () => undefined })).toBe(false);
    expect(buffer.offer(item(4), { admit: () => admitted.push(4), drop: () => undefined })).toBe(false);
    expect(buffer.blocked).toBe(2);
    const batch = buffer.take(1, 1000);
    expect(batch.map((i) => i.id)).toEqual([1]);
    expect(buffer.events).toBe(2); // in flight still counts
    buffer.release(batch);
    expect(admitted).toEqual([3]);
    expect(buffer.take(10, 1000).map((i) => i.id)).toEqual([2, 3]);
  });

  it('keeps the byte bound, but admits one oversized message into an empty buffer', () => {
    const buffer = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 100, maxBytes: 25 });
    expect(buffer.offer(item(1), noWaiter)).toBe(true);
    expect(buffer.offer(item(2), noWaiter)).toBe(true);
    expect(buffer.offer(item(3), noWaiter)).toBe(false);
    expect(buffer.bytes).toBe(20);
    const big = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 100, maxBytes: 25 });
    expect(big.offer(item(1, 500), noWaiter)).toBe(true);
  });

  it('a message in line stays behind: later offers wait even when they would fit', () => {
    const buffer = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 10, maxBytes: 25 });
    expect(buffer.offer(item(1, 20), noWaiter)).toBe(true);
    expect(buffer.offer(item(2, 20), noWaiter)).toBe(false);
    expect(buffer.offer(item(3, 1), noWaiter)).toBe(false);
  });

  it('takes batches by count and bytes (at least one message) and tracks queued bytes', () => {
    const buffer = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 100, maxBytes: 1000 });
    for (let n = 1; n <= 5; n++) buffer.offer(item(n, 30), noWaiter);
    expect(buffer.queuedBytes).toBe(150);
    expect(buffer.take(10, 70).map((i) => i.id)).toEqual([1, 2]);
    expect(buffer.take(10, 10).map((i) => i.id)).toEqual([3]);
    expect(buffer.take(1, 1000).map((i) => i.id)).toEqual([4]);
    expect(buffer.queued).toBe(1);
    expect(buffer.queuedBytes).toBe(30);
  });

  it('drops what waits and what is queued after a failure', () => {
    const buffer = new BoundedBuffer<{ id: number; bytes: number }>({ maxEvents: 1, maxBytes: 1000 });
    buffer.offer(item(1), noWaiter);
    const errors: unknown[] = [];
    buffer.offer(item(2), { admit: () => undefined, drop: (e) => errors.push(e) });
    expect(buffer.dropWaiting('boom').map((i) => i.id)).toEqual([2]);
    expect(errors).toEqual(['boom']);
    expect(buffer.dropQueued().map((i) => i.id)).toEqual([1]);
    expect(buffer.events).toBe(0);
    expect(buffer.bytes).toBe(0);
  });
});

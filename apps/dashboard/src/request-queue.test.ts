import { describe, expect, it } from 'vitest';
import { createRequestQueue } from './request-queue';

/** A task the test finishes by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createRequestQueue (#45: the first paint fits the concurrency limit)', () => {
  it('runs at most `width` tasks at once, the others in the order they were asked for', async () => {
    const queue = createRequestQueue(2);
    const tasks = Array.from({ length: 5 }, () => deferred<number>());
    const started: number[] = [];
    let most = 0;
    const results = tasks.map((task, n) =>
      queue.run(() => {
        started.push(n);
        most = Math.max(most, queue.inFlight);
        return task.promise;
      }),
    );
    const all = Promise.allSettled(results);
    await settle();
    expect(started).toEqual([0, 1]);
    tasks[1]!.resolve(1);
    await settle();
    expect(started).toEqual([0, 1, 2]);
    tasks[0]!.reject(new Error('refused'));
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    tasks[2]!.resolve(2);
    tasks[3]!.resolve(3);
    await settle();
    tasks[4]!.resolve(4);
    const settled = await all;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      'refused',
      1,
      2,
      3,
      4,
    ]);
    expect(most).toBe(2);
    expect(queue.inFlight).toBe(0);
  });

  it('gives the place back when a task throws before it returns a promise', async () => {
    const queue = createRequestQueue(1);
    await expect(
      queue.run(() => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    await expect(queue.run(async () => 'next')).resolves.toBe('next');
  });

  it('refuses a width below 1', () => {
    expect(() => createRequestQueue(0)).toThrow(RangeError);
  });
});

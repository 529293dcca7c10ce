import { Piscina } from 'piscina';
import { afterEach, describe, expect, it } from 'vitest';
import { FifoPool } from './fifo-pool';

const filename = new URL('./fixtures/busy-worker.mjs', import.meta.url).href;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Runner {
  run(task: { id: number; ms: number }, signal: AbortSignal): Promise<number>;
}

/**
 * Steady load on one worker, as ten dashboards polling a heavy query: `clients` loops each send a
 * task as soon as their previous one is answered. Returns, for every task, how many tasks that
 * arrived after it were answered before it.
 */
async function overtakes(runner: Runner, clients: number, tasks: number): Promise<number[]> {
  let next = 0;
  const answered: number[] = [];
  const client = async () => {
    while (next < tasks) {
      const id = next++;
      answered.push(await runner.run({ id, ms: 2 }, new AbortController().signal));
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  const position = new Map(answered.map((id, index) => [id, index]));
  return answered.map(
    (id) => answered.filter((other, index) => other > id && index < position.get(id)!).length,
  );
}

describe('FifoPool', () => {
  it('starts tasks in the order they arrived under steady load on one worker', async () => {
    const pool = new FifoPool<{ id: number; ms: number }, number>({ filename, threads: 1 });
    closers.push(() => pool.close());
    const passed = await overtakes(pool, 10, 300);
    expect(Math.max(...passed)).toBe(0);
  });

  it('is needed: piscina alone lets later tasks overtake earlier ones without bound', async () => {
    // The reason FifoPool exists. If a piscina release makes this fail, its own queue became fair.
    const pool = new Piscina<{ id: number; ms: number }, number>({ filename, minThreads: 1, maxThreads: 1 });
    closers.push(() => pool.close({ force: true }));
    const passed = await overtakes({ run: (task, signal) => pool.run(task, { signal }) }, 10, 300);
    expect(Math.max(...passed)).toBeGreaterThan(100); // 295 of 300 here: one task waited out the whole load
  });

  it('takes a task out of the line when it is aborted while waiting, and runs the rest in order', async () => {
    const pool = new FifoPool<{ id: number; ms: number }, number>({ filename, threads: 1 });
    closers.push(() => pool.close());
    const first = pool.run({ id: 0, ms: 100 }, new AbortController().signal);
    const gone = new AbortController();
    const waiting = pool.run({ id: 1, ms: 1 }, gone.signal);
    const last = pool.run({ id: 2, ms: 1 }, new AbortController().signal);
    expect(pool.waiting).toBe(2);
    gone.abort(new Error('budget'));
    await expect(waiting).rejects.toThrow('budget');
    expect(pool.waiting).toBe(1);
    expect(await Promise.all([first, last])).toEqual([0, 2]);
  });

  it('stops a running task on abort and keeps serving with a fresh worker', async () => {
    const pool = new FifoPool<{ id: number; ms: number }, number>({ filename, threads: 1 });
    closers.push(() => pool.close());
    const stop = new AbortController();
    const stuck = pool.run({ id: 0, ms: 60_000 }, stop.signal);
    const next = pool.run({ id: 1, ms: 1 }, new AbortController().signal);
    setTimeout(() => stop.abort(new Error('budget')), 50);
    await expect(stuck).rejects.toThrow();
    expect(await next).toBe(1);
  });
});

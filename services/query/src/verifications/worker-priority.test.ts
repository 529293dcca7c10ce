import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { READ_WORKER_NICE } from './worker-priority';

describe('#39 item 9: read workers run below the main thread', () => {
  it.runIf(process.platform === 'linux')('lowers the worker thread only, not the main thread', async () => {
    const mainBefore = getPriority();
    const worker = new Worker(new URL('./fixtures/priority-worker.mjs', import.meta.url));
    const reported = await new Promise<{ lowered: boolean; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reported).toEqual({ lowered: true, nice: Math.max(mainBefore, READ_WORKER_NICE) });
    expect(getPriority()).toBe(mainBefore);
  });
});

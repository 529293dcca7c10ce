import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForCluster, writeClusterStatus } from './cluster-status.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-status-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the cluster status file', () => {
  it('holds a file back while the cluster starts, and lets it go once it serves', async () => {
    const file = path.join(dir, 'ready.json');
    writeClusterStatus(file, { state: 'starting' });
    let done = false;
    const waiting = waitForCluster(file, 5_000).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false);
    writeClusterStatus(file, { state: 'ready' });
    await waiting;
    expect(done).toBe(true);
  });

  it("fails the file with the start's error when the cluster did not come up", async () => {
    const file = path.join(dir, 'failed.json');
    writeClusterStatus(file, { state: 'failed', error: 'Error: redis-cluster: port 17000 is already taken' });
    await expect(waitForCluster(file, 5_000)).rejects.toThrow(/did not start: .*port 17000 is already taken/);
  });

  it('gives up after its timeout while the cluster is still starting', async () => {
    const file = path.join(dir, 'stuck.json');
    writeClusterStatus(file, { state: 'starting' });
    // 300 ms times TEST_TIME_SCALE.
    await expect(waitForCluster(file, 300)).rejects.toThrow(/not met after \d+ ms/);
  });
});

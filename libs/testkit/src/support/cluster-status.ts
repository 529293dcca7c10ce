// The cluster project's Redis Cluster comes up in the background (cluster-global-setup.ts), beside the unit
// tests, instead of holding every test back for its ~7 s start. Its state goes through a small JSON file that
// the global setup writes and every file of the project waits on (cluster-setup-file.ts): the addresses are
// known before the cluster serves, whether it came up is not.
import fs from 'node:fs';
import { waitFor } from './wait.js';

export type ClusterStatus = { state: 'starting' } | { state: 'ready' } | { state: 'failed'; error: string };

export function writeClusterStatus(file: string, status: ClusterStatus): void {
  // Written whole and renamed: a reader never sees half a file.
  fs.writeFileSync(`${file}.partial`, JSON.stringify(status));
  fs.renameSync(`${file}.partial`, file);
}

function readClusterStatus(file: string): ClusterStatus {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ClusterStatus;
}

/** Resolves once the cluster serves every slot; throws the start's error if it failed. */
export async function waitForCluster(file: string, timeoutMs = 120_000): Promise<void> {
  const status = await waitFor(
    () => {
      const read = readClusterStatus(file);
      return read.state === 'starting' ? undefined : read;
    },
    { timeoutMs, intervalMs: 100, message: `the cluster project's Redis Cluster (${file})` },
  );
  if (status.state === 'failed')
    throw new Error(`the cluster project's Redis Cluster did not start: ${status.error}`);
}

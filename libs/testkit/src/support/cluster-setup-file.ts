// Runs in every file of the `cluster` project, after setup-file.ts: the run's Redis Cluster, started in the
// background by cluster-global-setup.ts, serves every slot before the file starts.
import { inject } from 'vitest';
import { waitForCluster } from './cluster-status.js';

await waitForCluster(inject('redisClusterStatusFile')!);

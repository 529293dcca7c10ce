// Runs in every integration test file: the services' bundles are current before the file starts (the
// global setup's build, waited for under its lock; or a build of our own when a source changed since), and
// whatever child process a file started through the harness (services, private redis-servers) is killed
// when the file ends, even if the file forgot or failed.
import { afterAll } from 'vitest';
import { ensureBuilt } from '@va/infra/build';
import { killAllChildren } from './children.js';

await ensureBuilt();

afterAll(() => {
  killAllChildren();
});

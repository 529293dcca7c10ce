// Runs in every integration test file: whatever child process a file started through the harness
// (services, private redis-servers) is killed when the file ends, even if the file forgot or failed.
import { afterAll } from 'vitest';
import { killAllChildren } from './children.js';

afterAll(() => {
  killAllChildren();
});

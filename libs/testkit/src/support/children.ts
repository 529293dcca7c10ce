// Every child process a test starts is registered here, so none outlives its test file even when a test
// forgets to stop it or fails half-way: setup-file.ts kills what is left after each file, and the worker's
// own exit or SIGTERM (how the pool ends a worker) does the same as a last resort.
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();
let hooked = false;

export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!hooked) {
    hooked = true;
    process.once('exit', killAllChildren);
    process.once('SIGTERM', () => {
      killAllChildren();
      process.exit(143);
    });
  }
}

export function killAllChildren(): void {
  for (const child of running) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

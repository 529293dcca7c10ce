/**
 * Read workers run below the main thread's priority. The main thread answers light queries,
 * checks and refusals, and forwards the workers' answers: its event loop must get a core as soon
 * as it has work (docs/query-isolation.md, "The event loop"). A heavy read can wait a few
 * milliseconds; on a busy machine the kernel otherwise shares the cores evenly between the
 * worker, which has work for seconds, and the main thread, which then waits tens of ms per turn.
 */
import { constants, setPriority } from 'node:os';

/** The nice value of a read worker's thread (the main thread keeps its own, 0 by default). */
export const READ_WORKER_NICE = constants.priority.PRIORITY_BELOW_NORMAL;

/**
 * Lowers the calling thread's priority, on Linux only: there the nice value belongs to each
 * thread (setpriority(2) with pid 0 is the calling thread), elsewhere to the whole process,
 * main thread included. Lowering needs no privilege; where the OS refuses, nothing changes.
 */
export function lowerThisThreadPriority(nice = READ_WORKER_NICE): boolean {
  if (process.platform !== 'linux') return false;
  try {
    setPriority(nice);
    return true;
  } catch {
    return false;
  }
}

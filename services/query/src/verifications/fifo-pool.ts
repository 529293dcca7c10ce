/**
 * A piscina pool whose tasks start in the order they arrived. piscina 5 only dispatches a task
 * when a worker is free, and a task carrying an AbortSignal that it could not dispatch goes to the
 * back of its line (with `stricterFIFO`, to the front): under steady load on one worker the task
 * second in line is sent to the back each time a worker frees up, and some tasks were passed over
 * until their time budget ran out (a 503 while the tasks around them took milliseconds;
 * services/query/bench/pool-fairness.ts measures it). So the waiting happens here, in a FIFO
 * queue (p-queue), and piscina is handed a task only when one of its workers is free.
 */
import PQueue from 'p-queue';
import { Piscina } from 'piscina';

export type FifoPoolOptions = NonNullable<ConstructorParameters<typeof Piscina>[0]> & { threads: number };

export class FifoPool<Task, Result> {
  private readonly pool: Piscina<Task, Result>;
  /** At most `threads` tasks are in piscina at a time; the rest wait here, in order. */
  private readonly line: PQueue;

  constructor({ threads, ...options }: FifoPoolOptions) {
    this.pool = new Piscina({ ...options, minThreads: threads, maxThreads: threads });
    this.line = new PQueue({ concurrency: threads });
  }

  /**
   * Runs the task once a worker is free and every task that arrived before it has started. An
   * abort while it waits takes it out of the line; an abort while it runs terminates its worker
   * (piscina starts a fresh one). Either way the promise rejects with the signal's reason.
   */
  run(task: Task, signal: AbortSignal): Promise<Result> {
    return this.line.add(() => this.pool.run(task, { signal }), { signal });
  }

  /** Tasks waiting for a worker. */
  get waiting(): number {
    return this.line.size;
  }

  /** Stops the workers; tasks still in line are refused by the closed pool when their turn comes. */
  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}

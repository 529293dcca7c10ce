/**
 * Query slots given back in the next pipeline this service sends. A request releases its slot once its
 * answer was read (admission.ts); sent at once, that ZREM is one more write to Redis per request, about as
 * much CPU as the request's reads on a small VM. Queued here, it goes out first in the next request's first
 * round trip (startQuery and admit drain the queue into their pipelines), or after RELEASE_DELAY_MS when no
 * request comes: a finished request holds its slot at most that much longer. A request of the same root key
 * that follows it on the same service takes its slot after the release, in the same pipeline (Redis runs a
 * pipeline in order), so a client asking one query after another never meets its own slot.
 */
import type { ChainableCommander } from 'ioredis';
import { execPipeline, newPipeline, type RedisClient } from '@va/store';

export const RELEASE_DELAY_MS = 2;

interface Pending {
  sets: readonly string[];
  member: string;
  done: () => void;
}

export class ReleaseQueue {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly delayMs = RELEASE_DELAY_MS,
  ) {}

  /** Gives `member`'s slots back; resolves once Redis ran the release (or it failed: the slot expires). */
  release(sets: readonly string[], member: string): Promise<void> {
    if (sets.length === 0) return Promise.resolve();
    return new Promise((done) => {
      this.pending.push({ sets, member, done });
      this.timer ??= setTimeout(() => void this.flush(), this.delayMs);
    });
  }

  /**
   * Queues every pending release on `pipeline` (before its other commands); the returned function is
   * called once the pipeline ran, whatever its outcome.
   */
  drainInto(pipeline: ChainableCommander): () => void {
    const taken = this.take();
    for (const { sets, member } of taken) for (const set of sets) pipeline.zrem(set, member);
    return () => taken.forEach((p) => p.done());
  }

  /** Sends what is pending now, in a pipeline of its own (on shutdown, or when no request came). */
  flush(): Promise<void> {
    const pipeline = newPipeline(this.redis);
    const ran = this.drainInto(pipeline);
    if (pipeline.length === 0) return Promise.resolve();
    return execPipeline(pipeline).then(ran, ran);
  }

  private take(): Pending[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}

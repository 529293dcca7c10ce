/**
 * The state machine of one assigned partition in the worker (pure: no Kafka, no Redis).
 *
 *   unknown --resync(wm)--> known(position = wm, sought to wm + 1)
 *   known   --batch prepared--> known(position = batch's last offset)   (commit queued)
 *   any     --invalidate (conflict, error, Redis reset)--> unknown, lineage + 1
 *
 * `position` is the wm Redis will hold once every queued commit succeeds. `lineage` is bumped by
 * every invalidation: queued commits and resyncs of an older lineage are dropped.
 */
import { nextOffset, type Offset } from './types';

/** What to do with a fetched batch. */
export type FetchVerdict =
  /** The wm is not known: resync (read it from Redis, seek to wm + 1), drop the batch. */
  | { action: 'resync'; cause: 'unknown-wm' | 'position' }
  /** Everything in it is already queued or applied: resolve it and move on. */
  | { action: 'ignore' }
  /** Process it on top of `wm`. `gap`: Kafka no longer holds the offsets after wm (retention). */
  | { action: 'process'; wm: Offset; gap: boolean };

export class PartitionState {
  private wm: Offset = null;
  private known = false;
  /** Offset of the last seek: a fetch starting later than it means Kafka no longer has those offsets. */
  private soughtTo: number | undefined;
  private generation = 0;
  /** The last queued commit (never rejects). */
  tail: Promise<void> = Promise.resolve();
  /** Resync started by the group join. */
  loading: Promise<void> | undefined;
  /** The worker's retries of the resync while Redis does not answer (never rejects). */
  recovering: Promise<void> | undefined;

  get lineage(): number {
    return this.generation;
  }

  /** The wm after every queued commit; undefined = unknown. */
  get position(): Offset | undefined {
    return this.known ? this.wm : undefined;
  }

  /** Drops queued commits and forgets the position. */
  invalidate(): void {
    this.generation++;
    this.known = false;
  }

  /** Starts a resync: returns its lineage, to pass to `resynced`. */
  beginResync(): number {
    this.invalidate();
    return this.generation;
  }

  /** The resync read `wm`; false (nothing changed) when another one overtook it. Then seek to wm + 1. */
  resynced(lineage: number, wm: Offset): boolean {
    if (lineage !== this.generation) return false;
    this.wm = wm;
    this.known = true;
    this.soughtTo = nextOffset(wm);
    return true;
  }

  /** Judges a fetched batch: `firstOffset` is the first offset served (control records included). */
  check(firstOffset: number, lastOffset: number): FetchVerdict {
    if (!this.known) return { action: 'resync', cause: 'unknown-wm' };
    const expected = nextOffset(this.wm);
    let gap = false;
    if (firstOffset > expected) {
      // Right after a seek to `expected`: Kafka no longer holds those offsets. Otherwise the fetch
      // raced a seek, or Kafka's committed offset is ahead of a Redis that lost its last second.
      if (this.soughtTo !== expected) return { action: 'resync', cause: 'position' };
      gap = true;
    }
    this.soughtTo = undefined;
    if (lastOffset < expected) return { action: 'ignore' };
    return { action: 'process', wm: this.wm, gap };
  }

  /** A batch through `lastOffset` was prepared in `lineage` and its commit queued. */
  queued(lineage: number, lastOffset: number): boolean {
    if (lineage !== this.generation || !this.known) return false;
    this.wm = lastOffset;
    return true;
  }
}

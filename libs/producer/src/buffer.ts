/**
 * The producer's memory bound (pure: no I/O, no clock). Messages wait here from `send()` until the
 * broker acknowledges them; both the queued ones and the batch in flight count against the limits.
 * A message that does not fit waits in FIFO order (backpressure) and is admitted, in order, as
 * acknowledged batches release room. One message larger than the byte limit is admitted alone
 * (into an empty buffer) rather than never.
 */
export interface Limits {
  maxEvents: number;
  maxBytes: number;
}

export interface Sized {
  bytes: number;
}

/** What a message in line is told: admitted, or dropped (never to be sent). */
export interface Waiter {
  admit: () => void;
  drop: (error: unknown) => void;
}

export class BoundedBuffer<T extends Sized> {
  private queue: T[] = [];
  private head = 0;
  private readonly waiting: ({ item: T } & Waiter)[] = [];
  /** Messages admitted and not yet released (queued + in flight), and their bytes. */
  events = 0;
  bytes = 0;

  constructor(private readonly limits: Limits) {}

  /** Messages admitted and not yet taken into a batch. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  /** Bytes of the queued messages. */
  queuedBytes = 0;

  /** Messages waiting for room. */
  get blocked(): number {
    return this.waiting.length;
  }

  /** The oldest queued message (the one whose linger runs), if any. */
  peek(): T | undefined {
    return this.queue[this.head];
  }

  private fits(bytes: number): boolean {
    if (this.events === 0) return true;
    return this.events + 1 <= this.limits.maxEvents && this.bytes + bytes <= this.limits.maxBytes;
  }

  private admit(item: T): void {
    this.queue.push(item);
    this.events++;
    this.bytes += item.bytes;
    this.queuedBytes += item.bytes;
  }

  /**
   * Admits `item` now (returns true) or puts it in line (returns false); the waiter hears later
   * whether it was admitted or dropped.
   */
  offer(item: T, waiter: Waiter): boolean {
    if (this.waiting.length === 0 && this.fits(item.bytes)) {
      this.admit(item);
      return true;
    }
    this.waiting.push({ item, ...waiter });
    return false;
  }

  /** Takes the oldest queued messages into a batch: at most maxEvents of them and maxBytes (at least one). */
  take(maxEvents: number, maxBytes: number): T[] {
    const batch: T[] = [];
    let bytes = 0;
    while (this.head < this.queue.length && batch.length < maxEvents) {
      const next = this.queue[this.head]!;
      if (batch.length > 0 && bytes + next.bytes > maxBytes) break;
      batch.push(next);
      bytes += next.bytes;
      this.head++;
    }
    this.queuedBytes -= bytes;
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return batch;
  }

  /** A batch is done with (acknowledged or failed): its room goes to the messages in line, in order. */
  release(batch: readonly T[]): void {
    for (const item of batch) {
      this.events--;
      this.bytes -= item.bytes;
    }
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.item.bytes)) {
      const next = this.waiting.shift()!;
      this.admit(next.item);
      next.admit();
    }
  }

  /** Drops every message in line (the producer failed: they will not be sent); returns them. */
  dropWaiting(error: unknown): T[] {
    const dropped = this.waiting.splice(0);
    for (const w of dropped) w.drop(error);
    return dropped.map((w) => w.item);
  }

  /** Drops every queued message not yet in a batch (after a failure); returns them. */
  dropQueued(): T[] {
    const dropped = this.queue.slice(this.head);
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    for (const item of dropped) {
      this.events--;
      this.bytes -= item.bytes;
    }
    return dropped;
  }
}

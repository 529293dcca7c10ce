/**
 * Sends messages to one topic in chunks with a few requests in flight, acknowledged by all
 * in-sync replicas (the backfill's producer; libs/testkit/src/event-producer.ts does the same for a
 * synchronous source, this one is fed record by record from an asynchronous one).
 */
import type { Message, Producer } from 'kafkajs';

export class ChunkSender {
  private chunk: Message[] = [];
  private readonly pending = new Set<Promise<void>>();
  private failure: unknown;
  /** Messages acknowledged by the broker. */
  sent = 0;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly chunkSize = 2000,
    private readonly inFlight = 4,
  ) {}

  async push(message: Message): Promise<void> {
    this.chunk.push(message);
    if (this.chunk.length >= this.chunkSize) await this.send();
  }

  /** Sends what is buffered and waits for every send. Throws the first failure. */
  async flush(): Promise<void> {
    await this.send();
    await Promise.all(this.pending);
    if (this.failure) throw this.failure;
  }

  private async send(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.chunk.length === 0) return;
    const messages = this.chunk;
    this.chunk = [];
    const p: Promise<void> = this.producer
      .send({ topic: this.topic, acks: -1, messages })
      .then(
        () => {
          this.sent += messages.length;
        },
        (err: unknown) => {
          this.failure ??= err;
        },
      )
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
    if (this.pending.size >= this.inFlight) await Promise.race(this.pending);
  }
}

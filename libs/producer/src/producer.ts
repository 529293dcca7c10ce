/**
 * The verification-event producer: `send()` validates and buffers, one loop sends batches.
 *
 * - Batching and linger: a batch leaves when it holds `batchSize` events or `maxBatchBytes`, when
 *   its oldest event has waited `lingerMs`, or at once on `flush()`/`close()`.
 * - Idempotence: the kafkajs producer is idempotent (producer id + sequence numbers, acks = all,
 *   unlimited retries), so a retry after a lost response or a broker restart does not write the
 *   records twice. kafkajs keeps sequence numbers gapless only with one request in flight
 *   (`maxInFlightRequests: 1`) and one send at a time: the loop sends one batch, waits for its
 *   acknowledgement, then sends the next.
 * - Backpressure: events wait in a bounded buffer (buffer.ts) from `send()` to their
 *   acknowledgement; when it is full, `send()` resolves only once there is room again.
 * - Order: events are sent in the order of the `send()` calls, so per key (partition) they land in
 *   that order; `onDelivered` hears of the batches in the same order.
 */
import {
  Kafka,
  logLevel,
  Partitioners,
  type IHeaders,
  type Message,
  type Producer,
  type RecordMetadata,
  type RetryOptions,
  type TopicMessages,
} from 'kafkajs';
import type { Registry } from 'prom-client';
import { BoundedBuffer } from './buffer';
import { buildEvent, type EventInput } from './event';
import { messageKey, type KeyStrategy } from './key';
import { producerMetrics, type ProducerMetrics } from './metrics';

/** A message given as it is (already encoded and checked by the caller), e.g. a replayed record. */
export interface RawMessage<R = unknown> {
  /** Default: the producer's topic. */
  topic?: string;
  key: string | Buffer | null;
  /** null: a tombstone (a record without value, e.g. a replayed one). */
  value: string | Buffer | null;
  headers?: IHeaders;
  /** Anything the caller wants back in `onDelivered` (e.g. a line number). */
  ref?: R;
}

export interface DeliveredBatch<R> {
  /** The `ref` of every message of the batch, in send order (undefined where none was given). */
  refs: (R | undefined)[];
  /** What Kafka answered: per topic and partition, the base offset of the records written. */
  records: RecordMetadata[];
}

/** Sends one batch and resolves once Kafka acknowledged all of it (the kafkajs edge; tests fake it). */
export type BatchSender = (topicMessages: TopicMessages[]) => Promise<RecordMetadata[]>;

export interface ProducerOptions<R = unknown> {
  /** The topic of `send()` (and of raw messages without one). */
  topic: string;
  /**
   * A kafkajs client; or `brokers` (+ `clientId`, `logLevel`) to make one. The client's own `retry`
   * decides how long a reconnect may take before a batch fails (the one made here: about ten
   * minutes of outage, CLIENT_RETRY); the producer itself retries a batch for as long as that.
   */
  kafka?: Kafka;
  brokers?: string[];
  clientId?: string;
  logLevel?: logLevel;
  /** Message key: `apiId` (default) keeps an API on one partition; `apiId+keyId` spreads it over them by key. */
  key?: KeyStrategy;
  /** Most events in one batch (default 5000). */
  batchSize?: number;
  /** Most bytes (keys + values + headers) in one batch, at least one event (default 900 kB: below the broker's 1 MB message.max.bytes). */
  maxBatchBytes?: number;
  /** How long an event may wait for its batch to fill (default 5 ms). */
  lingerMs?: number;
  /** Buffer bound in events, queued and in flight (default 50,000). */
  maxBufferedEvents?: number;
  /** Buffer bound in bytes (default 32 MiB). */
  maxBufferedBytes?: number;
  /** Where the metrics go (default: prom-client's global registry). */
  registry?: Registry;
  /** Metric name prefix (default `va_producer_`). */
  metricsPrefix?: string;
  /** kafkajs retry options of a send (default: CLIENT_RETRY's timing, without a limit on the count). */
  retry?: RetryOptions;
  /** Called after each acknowledged batch, in order; the next batch waits for it. */
  onDelivered?: (batch: DeliveredBatch<R>) => void | Promise<void>;
  /** Replaces the kafkajs producer (tests of the batching logic). */
  sender?: BatchSender;
}

interface Item<R> {
  topic: string;
  message: Message;
  ref: R | undefined;
  bytes: number;
  seq: number;
  /** performance.now() when send() was called. */
  at: number;
}

/**
 * Reconnect retries of the client the producer makes. kafkajs's idempotent producer retries a send
 * without limit, but a reconnect inside it gives up after the client's own retries (kafkajs
 * default: 5, about 10 s), which fails the batch when a broker restart takes longer. 120 retries of
 * at most 5 s ride out about ten minutes.
 */
export const CLIENT_RETRY: RetryOptions = { initialRetryTime: 300, maxRetryTime: 5_000, retries: 120 };

const byteLength = (v: string | Buffer | null | undefined): number =>
  v == null ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length;

function headerBytes(headers: IHeaders | undefined): number {
  if (!headers) return 0;
  let sum = 0;
  for (const [name, value] of Object.entries(headers)) {
    sum += Buffer.byteLength(name);
    for (const v of Array.isArray(value) ? value : [value])
      sum += byteLength(v as string | Buffer | undefined);
  }
  return sum;
}

/** Groups a batch by topic, keeping the send order within each topic. */
function byTopic<R>(batch: readonly Item<R>[]): TopicMessages[] {
  const topics = new Map<string, Message[]>();
  for (const item of batch) {
    const list = topics.get(item.topic);
    if (list) list.push(item.message);
    else topics.set(item.topic, [item.message]);
  }
  return [...topics].map(([topic, messages]) => ({ topic, messages }));
}

export class VerificationProducer<R = unknown> {
  private readonly buffer: BoundedBuffer<Item<R>>;
  private readonly metrics: ProducerMetrics;
  private readonly kafkaProducer: Producer | undefined;
  private readonly sender: BatchSender;
  private readonly batchSize: number;
  private readonly maxBatchBytes: number;
  private readonly lingerMs: number;
  private readonly keyStrategy: KeyStrategy;
  private connecting: Promise<void> | undefined;
  private kafka: Kafka | undefined;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private lastSeq = 0;
  private deliveredSeq = 0;
  private flushTarget = 0;
  private flushes: { target: number; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private failure: unknown;
  private closing = false;
  private reported = { events: 0, bytes: 0 };
  /** Events acknowledged by Kafka. */
  sent = 0;
  /** Events given up on (a batch failed for good, and everything buffered behind it). */
  failed = 0;

  constructor(private readonly options: ProducerOptions<R>) {
    this.batchSize = options.batchSize ?? 5000;
    this.maxBatchBytes = options.maxBatchBytes ?? 900_000;
    this.lingerMs = options.lingerMs ?? 5;
    this.keyStrategy = options.key ?? 'apiId';
    this.buffer = new BoundedBuffer({
      maxEvents: options.maxBufferedEvents ?? 50_000,
      maxBytes: options.maxBufferedBytes ?? 32 * 1024 * 1024,
    });
    this.metrics = producerMetrics(options.registry, options.metricsPrefix);
    if (options.sender) {
      this.sender = options.sender;
    } else {
      const kafka =
        options.kafka ??
        new Kafka({
          clientId: options.clientId ?? 'va-producer',
          brokers: options.brokers ?? [],
          logLevel: options.logLevel ?? logLevel.WARN,
          retry: CLIENT_RETRY,
        });
      const producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        // kafka.producer() inherits the client's retry options unless given its own: an idempotent
        // producer must retry without limit (kafkajs warns otherwise).
        retry: options.retry ?? { ...CLIENT_RETRY, retries: Number.MAX_SAFE_INTEGER },
      });
      this.kafkaProducer = producer;
      this.kafka = kafka;
      this.sender = (topicMessages) => producer.sendBatch({ topicMessages, acks: -1 });
    }
  }

  /** Connects to Kafka (also done on the first batch); resolves once connected. */
  async connect(): Promise<void> {
    this.connecting ??= this.kafkaProducer
      ? this.requireTopic().then(() => this.kafkaProducer?.connect())
      : Promise.resolve();
    await this.connecting;
    this.loopDone ??= this.loop();
  }

  /**
   * Fails fast when the topic does not exist: the idempotent producer retries a send without limit, so a
   * missing topic (a typo, or a broker without auto-creation) would otherwise hang every send forever.
   */
  private async requireTopic(): Promise<void> {
    if (!this.kafka) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      if (!topics.includes(this.options.topic))
        throw new Error(
          `topic ${this.options.topic} does not exist: create it first (npm start creates the stack's topics)`,
        );
    } finally {
      await admin.disconnect();
    }
  }

  /** Events accepted by send() and not yet acknowledged, and waiting for room. */
  get buffered(): { events: number; bytes: number; blocked: number } {
    return { events: this.buffer.events, bytes: this.buffer.bytes, blocked: this.buffer.blocked };
  }

  /**
   * Validates the event (InvalidEventError), fills requestId and time when missing, and buffers
   * it. Resolves once it is buffered, which waits while the buffer is full. Delivery: `flush()`.
   */
  async send(input: EventInput, ref?: R): Promise<void> {
    const event = buildEvent(input);
    await this.enqueue({
      key: messageKey(event, this.keyStrategy),
      value: JSON.stringify(event),
      ...(ref !== undefined && { ref }),
    });
  }

  /** Buffers a message as it is (no validation): for records the caller already checked. */
  async sendRaw(message: RawMessage<R>): Promise<void> {
    await this.enqueue(message);
  }

  private async enqueue(raw: RawMessage<R>): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closing) throw new Error('producer: send() after close()');
    if (!this.loopDone) void this.connect().catch((error: unknown) => this.fail(error, []));
    const message: Message = { key: raw.key, value: raw.value, ...(raw.headers && { headers: raw.headers }) };
    const item: Item<R> = {
      topic: raw.topic ?? this.options.topic,
      message,
      ref: raw.ref,
      bytes: byteLength(raw.key) + byteLength(raw.value) + headerBytes(raw.headers),
      seq: ++this.lastSeq,
      at: performance.now(),
    };
    let admitted = true;
    const room = new Promise<void>((admit, drop) => {
      admitted = this.buffer.offer(item, { admit, drop });
    });
    this.report();
    if (!admitted) {
      this.signal();
      await room;
    }
    this.signal();
  }

  /** Sends whatever is buffered now and resolves once Kafka acknowledged it (rejects on failure). */
  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    const target = this.lastSeq;
    if (this.deliveredSeq >= target) return;
    this.flushTarget = Math.max(this.flushTarget, target);
    const done = new Promise<void>((resolve, reject) => this.flushes.push({ target, resolve, reject }));
    this.signal();
    await done;
  }

  /** Flushes, stops the loop and disconnects. Rejects with the failure if delivery failed. */
  async close(): Promise<void> {
    try {
      if (!this.failure && this.lastSeq > this.deliveredSeq) await this.flush();
    } finally {
      this.closing = true;
      this.signal();
      await this.loopDone;
      await this.kafkaProducer?.disconnect();
    }
    if (this.failure) throw this.failure;
  }

  // ---- the loop ---------------------------------------------------------------------------

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => done(), ms) : undefined;
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }

  private async loop(): Promise<void> {
    for (;;) {
      if (this.failure) return;
      const oldest = this.buffer.peek();
      if (!oldest) {
        if (this.closing) return;
        await this.idle(Infinity);
        continue;
      }
      const full = this.buffer.queued >= this.batchSize || this.buffer.queuedBytes >= this.maxBatchBytes;
      const urgent = this.closing || this.flushTarget >= oldest.seq;
      const due = oldest.at + this.lingerMs - performance.now();
      if (!full && !urgent && due > 0) {
        await this.idle(due);
        continue;
      }
      await this.deliver(this.buffer.take(this.batchSize, this.maxBatchBytes));
    }
  }

  private async deliver(batch: Item<R>[]): Promise<void> {
    const stop = this.metrics.batchSeconds.startTimer();
    let records: RecordMetadata[];
    try {
      records = await this.sender(byTopic(batch));
    } catch (error) {
      this.fail(error, batch);
      return;
    }
    stop();
    this.metrics.batchEvents.observe(batch.length);
    for (const { topic, messages } of byTopic(batch)) this.metrics.sent.inc({ topic }, messages.length);
    this.sent += batch.length;
    if (this.options.onDelivered) {
      try {
        await this.options.onDelivered({ refs: batch.map((i) => i.ref), records });
      } catch (error) {
        this.fail(error, batch, false);
        return;
      }
    }
    this.deliveredSeq = batch[batch.length - 1]!.seq;
    this.release(batch);
    const settled = this.flushes.filter((f) => f.target <= this.deliveredSeq);
    this.flushes = this.flushes.filter((f) => f.target > this.deliveredSeq);
    for (const f of settled) f.resolve();
  }

  private release(batch: readonly Item<R>[]): void {
    this.buffer.release(batch); // admits messages in line, in order, and resolves their send()
    this.report();
  }

  /** Gives up: the batch (unless it was delivered) and everything buffered behind it fail. */
  private fail(error: unknown, batch: readonly Item<R>[], lost = true): void {
    this.failure ??= error;
    const dropped = [...(lost ? batch : []), ...this.buffer.dropQueued(), ...this.buffer.dropWaiting(error)];
    for (const item of dropped) this.metrics.failed.inc({ topic: item.topic });
    this.failed += dropped.length;
    this.buffer.release(batch);
    this.report();
    for (const f of this.flushes.splice(0)) f.reject(error);
    this.signal();
  }

  /** Moves this producer's share of the buffered gauges (shared by every producer of the registry). */
  private report(): void {
    this.metrics.bufferedEvents.inc(this.buffer.events - this.reported.events);
    this.metrics.bufferedBytes.inc(this.buffer.bytes - this.reported.bytes);
    this.reported = { events: this.buffer.events, bytes: this.buffer.bytes };
  }
}

/** Creates a producer; see ProducerOptions. Call `close()` on shutdown to deliver what is buffered. */
export function createProducer<R = unknown>(options: ProducerOptions<R>): VerificationProducer<R> {
  return new VerificationProducer(options);
}

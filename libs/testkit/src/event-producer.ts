/**
 * Produces events to Kafka fast: chunks of messages (key = apiId, or apiId/keyId to spread a hot API
 * over the partitions; value = JSON) sent with a few
 * requests in flight, acknowledged by all in-sync replicas; optionally paced to a rate.
 * Used by `produce`, the ingest tests and the benchmark.
 */
import type { Message, Producer } from 'kafkajs';
import { messageKey, type MessageKey, type VerificationEvent } from '@va/contracts';

export interface ProduceOptions {
  topic: string;
  /** Events per second; 0 or undefined = as fast as the broker takes them. */
  rate?: number;
  /** Messages per send (default 2000). */
  chunk?: number;
  /** Sends in flight (default 4). */
  inFlight?: number;
  onProgress?: (sent: number) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const eventMessage = (event: VerificationEvent, key: MessageKey = 'apiId'): Message => ({
  key: messageKey(event, key),
  value: JSON.stringify(event),
});

/** Sends every message of `source` (raw messages or events), in order per key. Returns the count. */
export async function produceMessages(
  producer: Producer,
  source: Iterable<Message>,
  options: ProduceOptions,
): Promise<number> {
  const chunkSize = options.chunk ?? 2000;
  const inFlight = options.inFlight ?? 4;
  const rate = options.rate ?? 0;
  const started = Date.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  let queued = 0;
  let chunk: Message[] = [];
  let failure: unknown;

  const flush = async () => {
    if (chunk.length === 0) return;
    const messages = chunk;
    chunk = [];
    queued += messages.length;
    if (rate > 0) {
      const due = started + (queued / rate) * 1000;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
    }
    // A message key maps to one partition; several sends in flight may reorder a key's messages
    // across chunks, which is harmless: counts do not depend on order.
    const p: Promise<void> = producer
      .send({ topic: options.topic, acks: -1, messages })
      .then(
        () => {
          sent += messages.length;
          options.onProgress?.(sent);
        },
        (err: unknown) => {
          failure ??= err;
        },
      )
      .finally(() => pending.delete(p));
    pending.add(p);
    if (pending.size >= inFlight) await Promise.race(pending);
    if (failure) throw failure;
  };

  for (const message of source) {
    chunk.push(message);
    if (chunk.length >= chunkSize || (rate > 0 && chunk.length >= Math.max(1, rate / 20))) await flush();
  }
  await flush();
  await Promise.all(pending);
  if (failure) throw failure;
  return sent;
}

/**
 * Sends `messages` like produceMessages, except that the last `tailShare` of them trickles (chunks of
 * `tailChunk` at `tailRate` per second) until `until()` holds, then goes on at the rate. A kill test
 * that must interrupt a stream N times keeps it flowing, and its consumers making progress, however
 * slow the machine.
 */
export async function produceWithTail(
  producer: Producer,
  messages: readonly Message[],
  options: ProduceOptions,
  tail: { until: () => boolean; tailRate: number; tailChunk: number; tailShare?: number },
): Promise<void> {
  let rest = messages.slice(Math.floor(messages.length * (1 - (tail.tailShare ?? 0.15))));
  await produceMessages(producer, messages.slice(0, messages.length - rest.length), options);
  while (!tail.until() && rest.length > 0) {
    await produceMessages(producer, rest.slice(0, tail.tailChunk), { ...options, rate: tail.tailRate });
    rest = rest.slice(tail.tailChunk);
  }
  await produceMessages(producer, rest, options);
}

export function* eventMessages(
  events: Iterable<VerificationEvent>,
  key: MessageKey | ((event: VerificationEvent) => MessageKey) = 'apiId',
): Iterable<Message> {
  for (const event of events) yield eventMessage(event, typeof key === 'function' ? key(event) : key);
}

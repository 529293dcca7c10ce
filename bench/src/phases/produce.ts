/**
 * Loads the data set into the bench's topic as fast as the broker takes it: the CLI's producer
 * (libs/testkit/src/event-producer.ts) with big chunks and several sends in flight, no compression
 * (kafkajs has only gzip built in, which would make the producer the bottleneck).
 */
import { Presets, SingleBar } from 'cli-progress';
import type { Kafka, Message } from 'kafkajs';
import { produceMessages } from '@va/testkit';
import { connectedProducer } from '../kafka';
import { log } from '../log';

export interface ProduceResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  avgEventBytes: number;
}

/** Produces `total` messages from `source` (the data set, or the live-shaped ingest set). */
export async function produceAll(
  kafka: Kafka,
  topic: string,
  source: Iterable<Message>,
  total: number,
): Promise<ProduceResult> {
  let bytes = 0;
  function* counted(): Generator<Message> {
    for (const message of source) {
      bytes += (message.value as string).length;
      yield message;
    }
  }
  const bar = process.stderr.isTTY
    ? new SingleBar(
        { format: 'produce [{bar}] {percentage}% {value}/{total} events, {eta}s left' },
        Presets.shades_classic,
      )
    : undefined;
  bar?.start(total, 0);
  let nextReport = 0.1;
  const producer = await connectedProducer(kafka);
  const started = Date.now();
  try {
    const sent = await produceMessages(producer, counted(), {
      topic,
      // 91% of the events share one key (the medium tenant's apiId), hence one partition: a chunk of
      // 3,000 (~600 KB there) stays under the broker's 1 MB max.message.bytes for one record batch.
      chunk: 3000,
      inFlight: 8,
      onProgress: (n) => {
        bar?.update(n);
        if (!bar && n >= nextReport * total) {
          log(`produced ${n}/${total}`);
          nextReport += 0.1;
        }
      },
    });
    const seconds = (Date.now() - started) / 1000;
    return {
      events: sent,
      seconds,
      eventsPerSecond: sent / seconds,
      avgEventBytes: bytes / Math.max(1, sent),
    };
  } finally {
    bar?.stop();
    await producer.disconnect();
  }
}

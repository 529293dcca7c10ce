/**
 * Where a backfill reads events from: an NDJSON file (one event per line) or a Kafka topic (from
 * its earliest retained offset to its end at the start). Both push records to the caller, which
 * awaits each one (backpressure). A record keeps its origin for the DLQ headers
 * (x-original-topic/partition/offset): a file's is `file:<path>`, partition -1, offset = line number.
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { IHeaders, Kafka } from 'kafkajs';
import { topicOffsets } from '../ops/kafka';
import { readTopicRanges } from '../ops/topic-reader';

export interface SourceRecord {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
}

export interface Source {
  /** What the summary calls it. */
  name: string;
  /** Progress unit total (bytes of a file, records of a topic). */
  total: number;
  /** Progress so far, in the same unit. */
  position(): number;
  read(emit: (record: SourceRecord) => Promise<void>): Promise<void>;
}

export function fileSource(path: string): Source {
  const total = statSync(path).size;
  const stream = createReadStream(path);
  return {
    name: path,
    total,
    position: () => stream.bytesRead,
    async read(emit) {
      let line = 0;
      for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
        line++;
        if (text.trim() === '') continue; // blank lines are layout, not events
        await emit({
          topic: `file:${path}`,
          partition: -1,
          offset: String(line),
          key: null,
          value: Buffer.from(text, 'utf8'),
          headers: undefined,
        });
      }
    },
  };
}

export async function topicSource(kafka: Kafka, topic: string): Promise<Source> {
  const offsets = await topicOffsets(kafka, [topic]);
  const ranges = offsets.map((p) => ({ partition: p.partition, from: p.low, to: p.high }));
  let read = 0;
  return {
    name: `topic ${topic}`,
    total: ranges.reduce((sum, r) => sum + r.to - r.from, 0),
    position: () => read,
    async read(emit) {
      await readTopicRanges(kafka, topic, ranges, async (partition, messages) => {
        for (const m of messages) {
          read++;
          await emit({
            topic,
            partition,
            offset: m.offset,
            key: m.key,
            value: m.value,
            headers: m.headers,
          });
        }
      });
    },
  };
}

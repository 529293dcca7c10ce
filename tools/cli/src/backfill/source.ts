/**
 * Where a backfill reads events from: an NDJSON file (one event per line) or a Kafka topic (from
 * its earliest retained offset to its end at the start). Both push records to the caller, which
 * awaits each one (backpressure). A record keeps its origin for the DLQ headers
 * (x-original-topic/partition/offset): a file's is `file:<path>`, partition -1, offset = line number.
 * A file is read once, by one stream: the lines sent and their hashes come from the same bytes.
 */
import { createReadStream, statSync } from 'node:fs';
import type { IHeaders, Kafka } from 'kafkajs';
import { topicOffsets } from '../ops/kafka';
import { readTopicRanges } from '../ops/topic-reader';
import {
  CHAIN_START,
  chainNext,
  isBlank,
  lineIdentity,
  lineText,
  LineSplitter,
  type FileLine,
} from './lines';

export interface SourceRecord {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
  /** A file line's hash chain (lines.ts) and whether it is blank (layout, never sent). */
  file?: { chain: string; blank: boolean };
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

/** Where a file's reading ended: its complete lines, the chain at the last one, the partial line after it. */
export interface FileEnd {
  lines: number;
  chain: string;
  partial: FileLine | undefined;
}

/**
 * Every complete line (blank ones too: they are numbered and chained, but carry `file.blank`), each
 * with its hash chain (lines.ts), from one read of the file. A partial last line is not emitted:
 * `end()` tells it.
 */
export function fileSource(path: string): Source & { end(): FileEnd; identity(): string | undefined } {
  const total = statSync(path).size;
  const stream = createReadStream(path);
  const lines = new LineSplitter();
  let chain = CHAIN_START;
  let identity: string | undefined;
  return {
    name: path,
    total,
    position: () => stream.bytesRead,
    async read(emit) {
      for await (const chunk of stream) {
        for (const { line, bytes } of lines.push(chunk as Buffer)) {
          chain = chainNext(chain, bytes);
          const blank = isBlank(bytes);
          if (!blank) identity ??= lineIdentity(bytes);
          await emit({
            topic: `file:${path}`,
            partition: -1,
            offset: String(line),
            key: null,
            value: Buffer.from(lineText(bytes)),
            headers: undefined,
            file: { chain, blank },
          });
        }
      }
    },
    /** The identity (lines.ts) of the first non-blank line read so far. */
    identity: () => identity,
    end: () => ({ lines: lines.lines, chain, partial: lines.partial() }),
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

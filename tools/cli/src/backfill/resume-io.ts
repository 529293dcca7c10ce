/**
 * The I/O of resumable file backfills (resume.ts holds the logic): the file's hash, the progress
 * record in Redis, and the scan of the topics for lines written after the record's last update.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Kafka } from 'kafkajs';
import { globalKeys, type RedisClient } from '@va/store';
import { topicOffsets } from '../ops/kafka';
import { readTopicRanges } from '../ops/topic-reader';
import { foundLine, type BackfillRecord, type LineKind } from './resume';

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const recordKey = (prefix: string, sha256: string): string => globalKeys(prefix).backfill(sha256);

export async function loadRecord(redis: RedisClient, key: string): Promise<BackfillRecord | undefined> {
  const raw = await redis.get(key);
  return raw === null ? undefined : (JSON.parse(raw) as BackfillRecord);
}

export async function saveRecord(redis: RedisClient, key: string, record: BackfillRecord): Promise<void> {
  await redis.set(key, JSON.stringify(record));
}

/** Lines of the file (by hash) in the backfill topic and the DLQ from the record's scanFrom on. */
export async function scanWritten(
  kafka: Kafka,
  record: BackfillRecord,
  topics: { backfill: string; dlq: string },
): Promise<Map<number, LineKind>> {
  const found = new Map<number, LineKind>();
  const ends = await topicOffsets(kafka, [topics.backfill, topics.dlq]);
  for (const topic of [topics.backfill, topics.dlq]) {
    const ranges = ends
      .filter((p) => p.topic === topic)
      .map((p) => ({
        partition: p.partition,
        from: Math.max(p.low, record.scanFrom[`${topic}/${p.partition}`] ?? p.low),
        to: p.high,
      }));
    await readTopicRanges(kafka, topic, ranges, (_partition, messages) => {
      for (const m of messages) {
        const hit = foundLine(record.sha256, topic === topics.dlq, m.headers);
        if (hit && hit.line > record.lines) found.set(hit.line, hit.kind);
      }
    });
  }
  return found;
}

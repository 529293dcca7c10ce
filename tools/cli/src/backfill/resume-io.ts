/**
 * The I/O of resumable file backfills (resume.ts holds the logic): the file's identity, the progress
 * records in Redis, and the scan of the topics for lines written after the record's last update.
 */
import { createHash } from 'node:crypto';
import { createReadStream, realpathSync } from 'node:fs';
import type { Kafka } from 'kafkajs';
import { globalKeys, type RedisClient } from '@va/store';
import { topicOffsets } from '../ops/kafka';
import { readTopicRanges } from '../ops/topic-reader';
import { isBlank, lineIdentity, LineSplitter } from './lines';
import {
  foundLine,
  newRecord,
  parseRecord,
  ResumeState,
  startVerdict,
  type BackfillRecord,
  type FoundLine,
} from './resume';

/**
 * The file's identity (lines.ts): the hash of its first non-blank line; undefined when it has none
 * (`partial`: the number of the line without a line end after the blank ones, if any). Reads only up
 * to that line.
 */
export async function fileIdentity(
  path: string,
): Promise<{ id: string } | { id?: undefined; partial: number | undefined }> {
  const lines = new LineSplitter();
  const stream = createReadStream(path);
  try {
    for await (const chunk of stream)
      for (const { bytes } of lines.push(chunk as Buffer))
        if (!isBlank(bytes)) return { id: lineIdentity(bytes) };
  } finally {
    stream.destroy();
  }
  const partial = lines.partial();
  return { partial: partial && !isBlank(partial.bytes) ? partial.line : undefined };
}

/** SHA-256 of the whole file: the key of the progress records of the command's first version. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const recordKey = (prefix: string, id: string): string => globalKeys(prefix).backfill(id);

/** The key that names the record last used from this path (symlinks resolved). */
export const pathKey = (prefix: string, path: string): string =>
  globalKeys(prefix).backfillPath(createHash('sha256').update(realpathSync(path)).digest('hex'));

export async function loadRecord(
  redis: RedisClient,
  key: string,
): Promise<{ record?: BackfillRecord; legacy?: { lines: number } }> {
  return parseRecord(await redis.get(key));
}

export async function saveRecord(redis: RedisClient, key: string, record: BackfillRecord): Promise<void> {
  await redis.set(key, JSON.stringify(record));
}

/** Lines of the backfill (by id) in the backfill topic and the DLQ from the record's scanFrom on. */
export async function scanWritten(
  kafka: Kafka,
  record: BackfillRecord,
  topics: { backfill: string; dlq: string },
): Promise<Map<number, FoundLine>> {
  const found = new Map<number, FoundLine>();
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
        const hit = foundLine(record.id, topic === topics.dlq, m.headers);
        if (hit && hit.line > record.lines) found.set(hit.line, { kind: hit.kind, chain: hit.chain });
      }
    });
  }
  return found;
}

/** A file backfill ready to run, or why not (the message and the exit code). */
export type OpenedFile =
  { exit: number; message: string } | { id: string; key: string; state: ResumeState; notes: string[] };

/** Why a partial last line is not sent (exit 4). */
export const partialMessage = (path: string, line: number): string =>
  `${path}: line ${line} has no line end, so the file may still be being written: it was not sent (sent ` +
  'now, its rest would later arrive as another line). The lines before it are sent. Run the command ' +
  'again once the file is complete; if it is complete, end its last line with a newline';

/**
 * Finds the progress record of the file at `path` (by its identity), checks it against the record the
 * same path used last (startVerdict) and against a record of the command's first version (keyed by the
 * whole file's hash), scans the topics for lines sent after the record's last update, and names the
 * record as this path's.
 */
export async function openFileBackfill(
  redis: RedisClient,
  kafka: Kafka,
  config: { keyPrefix: string; backfillTopic: string; dlqTopic: string },
  path: string,
  before: BackfillRecord['before'],
  now: Date,
): Promise<OpenedFile> {
  const identity = await fileIdentity(path);
  if (identity.id === undefined)
    return identity.partial === undefined
      ? { exit: 0, message: `${path} has no events: nothing to send` }
      : { exit: 4, message: partialMessage(path, identity.partial) };
  const key = recordKey(config.keyPrefix, identity.id);
  const { record } = await loadRecord(redis, key);
  const byPath = pathKey(config.keyPrefix, path);
  const ownerKey = await redis.get(byPath);
  const owner = ownerKey && ownerKey !== key ? (await loadRecord(redis, ownerKey)).record : undefined;
  const verdict = startVerdict(
    path,
    key,
    record,
    owner && ownerKey ? { key: ownerKey, record: owner } : undefined,
  );
  if ('refuse' in verdict) return { exit: 2, message: verdict.refuse };
  if (!record) {
    const legacyKey = recordKey(config.keyPrefix, await fileSha256(path));
    const { legacy } = await loadRecord(redis, legacyKey);
    if (legacy)
      return {
        exit: 2,
        message:
          `${path} has a progress record of the command's first version, ${legacyKey} (lines 1-${legacy.lines} ` +
          'sent), keyed by the whole file: this version cannot tell which of its lines were sent. To count ' +
          `the file again on purpose, delete that record (redis-cli DEL ${legacyKey}) and run again`,
      };
  }
  const found = record
    ? await scanWritten(kafka, record, { backfill: config.backfillTopic, dlq: config.dlqTopic })
    : new Map<number, FoundLine>();
  const notes = verdict.notes;
  if (found.size > 0) notes.push(`${found.size} lines after line ${record!.lines} found in Kafka already`);
  const state = new ResumeState(record ?? newRecord(identity.id, path, before, now), found, { key, path });
  if (!record) await saveRecord(redis, key, state.record);
  await redis.set(byPath, key);
  return { id: identity.id, key, state, notes };
}

/**
 * `backfill`: replays old events into the counters without double counting (README "Operations").
 *
 * Every event is checked with the ingest worker's own decoder; valid ones go to the backfill
 * topic (key = apiId), which the ingest worker consumes beside the live topic with the same
 * exactly-once protocol (and pauses while live traffic lags); invalid ones go to the DLQ in the
 * worker's format. Then the command waits until the worker has applied every produced offset (the
 * watermark of each backfill partition in the current generation) and prints what happened.
 * Options: ../program/backfill.ts.
 *
 * Exactly once from the file to the topics: sends go through @va/producer (idempotent: a retry
 * after a lost response does not write a record twice), and a file backfill keeps a progress
 * record in Redis keyed by the file's SHA-256 (backfill/resume.ts), so a run that died resumes
 * where the acknowledged lines end, and a finished file is not sent again (docs/rebuild.md).
 */
import { logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { createProducer } from '@va/producer';
import { SingleBar, Presets } from 'cli-progress';
import { clockOf, loadConfig } from '@va/config';
import type { MessageKey } from '@va/contracts';
import { decodeContext } from '@va/ingest';
import { classify } from '../backfill/classify';
import { lineHeaders, newRecord, ResumeState, VALID, type LineKind } from '../backfill/resume';
import { fileSha256, loadRecord, recordKey, saveRecord, scanWritten } from '../backfill/resume-io';
import { fileSource, topicSource, type Source } from '../backfill/source';
import {
  formatSummary,
  summaryJson,
  tallyWorkerDeadLetters,
  type BackfillTally,
  type ProducedRanges,
} from '../backfill/summary';
import { cliKafka, topicOffsets } from '../ops/kafka';
import { readTopicRanges } from '../ops/topic-reader';
import { waitApplied, type AppliedTarget } from '../ops/wait-applied';
import { UsageError } from '../usage-error';
import { withRedis } from './with-redis';

export interface BackfillOptions {
  /** NDJSON file, one event per line; exactly one of file and fromTopic. */
  file?: string | undefined;
  /** Another topic whose retained records are replayed. */
  fromTopic?: string | undefined;
  /** How long to wait for the ingest worker to apply the produced events. */
  timeoutMs: number;
  wait: boolean;
  json: boolean;
  /** Message key of the produced events (default apiId); apiId+keyId spreads an API over the partitions. */
  key?: MessageKey | undefined;
}

/** A bar on a TTY (stderr, like every progress display of the CLI); nothing otherwise. */
function progressBar(format: string): SingleBar | undefined {
  return process.stderr.isTTY
    ? new SingleBar({ format, hideCursor: true }, Presets.shades_classic)
    : undefined;
}

export async function backfillCommand(options: BackfillOptions): Promise<number> {
  if ((options.file === undefined) === (options.fromTopic === undefined))
    throw new UsageError('give exactly one of --file and --from-topic');
  const config = loadConfig();
  if (options.fromTopic === config.topic || options.fromTopic === config.backfillTopic) {
    process.stderr.write(
      `backfill: ${options.fromTopic} is consumed by the ingest worker already: its events are counted; ` +
        'replaying it would count them twice (to recount from the topics, use `rebuild`)\n',
    );
    return 2;
  }
  const kafka = cliKafka(config, 'va-cli-backfill');
  const source: Source = options.file
    ? fileSource(options.file)
    : await topicSource(kafka, options.fromTopic!);
  const clock = clockOf(config);
  const started = Date.now();
  return withRedis(async (redis) => {
    const current = await topicOffsets(kafka, [config.backfillTopic, config.dlqTopic]);
    // A file backfill resumes from its progress record (backfill/resume.ts); a topic replay starts over.
    const sha256 = options.file ? await fileSha256(options.file) : undefined;
    const key = sha256 && recordKey(config.keyPrefix, sha256);
    let record = key ? await loadRecord(redis, key) : undefined;
    let already = new Map<number, string>();
    if (record && !record.done) {
      already = await scanWritten(kafka, record, { backfill: config.backfillTopic, dlq: config.dlqTopic });
      process.stderr.write(
        `backfill: resuming ${source.name} after line ${record.lines}` +
          (already.size > 0 ? ` (${already.size} later lines found in Kafka already)` : '') +
          ` (progress record ${key})\n`,
      );
    } else if (record?.done) {
      process.stderr.write(
        `backfill: ${source.name} was backfilled completely (${record.updatedAt}, progress record ${key}): ` +
          'nothing to send; waiting for it to be counted\n',
      );
    }
    record ??= newRecord(sha256 ?? '', source.name, current, new Date());
    if (key && record.lines === 0) await saveRecord(redis, key, record);
    const state = new ResumeState(record, already);
    const before = record.before;

    // @va/producer: idempotent batches (a retry after a lost response does not write twice), one at
    // a time, in order; the record moves after each acknowledged batch.
    const producer = createProducer<{ line: number; kind: LineKind }>({
      topic: config.backfillTopic,
      brokers: config.kafkaBrokers,
      clientId: 'va-cli-backfill',
      logLevel: logLevel.NOTHING,
      registry: new Registry(),
      onDelivered: async ({ refs, records }) => {
        state.delivered(refs, records, new Date());
        if (key) await saveRecord(redis, key, state.record);
      },
    });
    try {
      const bar = progressBar(
        'read     [{bar}] {percentage}% | {read} read, {valid} valid, {dead} dead-lettered',
      );
      bar?.start(Math.max(source.total, 1), 0, { read: 0, valid: 0, dead: 0 });
      let ctx = decodeContext(clock(), config.retention);
      let read = 0;
      let valids = 0;
      let lastLine = 0;
      const ticker = setInterval(
        () => bar?.update(source.position(), { read, valid: valids, dead: read - valids }),
        250,
      );
      try {
        if (!record.done) {
          await producer.connect();
          await source.read(async (rec) => {
            // A file record's offset is its line number; a topic's records are numbered as read.
            const line = sha256 ? Number(rec.offset) : read + 1;
            lastLine = line;
            if (!state.needs(line)) return;
            // The decoder's notion of "now" (future and expired events) follows the clock.
            if (++read % 10_000 === 0) ctx = decodeContext(clock(), config.retention);
            const c = classify(rec, ctx, options.key ?? 'apiId');
            if (c.ok) valids++;
            await producer.sendRaw({
              topic: c.ok ? config.backfillTopic : config.dlqTopic,
              key: c.message.key ?? null,
              value: c.message.value,
              headers: sha256 ? { ...c.message.headers, ...lineHeaders(sha256, line) } : c.message.headers,
              ref: { line, kind: c.ok ? VALID : c.reason },
            });
          });
          await producer.flush();
          state.finish(lastLine, new Date());
          if (key) await saveRecord(redis, key, state.record);
        }
      } finally {
        clearInterval(ticker);
        bar?.update(source.total, { read, valid: valids, dead: read - valids });
        bar?.stop();
      }
    } finally {
      await producer.close();
    }
    const tally: BackfillTally = {
      source: source.name,
      topic: config.backfillTopic,
      read: record.read,
      produced: record.produced,
      rejected: new Map(Object.entries(record.rejected)),
      workerRejected: null,
      seconds: 0,
    };

    const after = await topicOffsets(kafka, [config.backfillTopic]);
    const produced: ProducedRanges = new Map();
    const targets: AppliedTarget[] = [];
    for (const p of after) {
      const from = before.find((b) => b.topic === p.topic && b.partition === p.partition)?.high ?? 0;
      if (p.high <= from) continue;
      produced.set(p.partition, { from, to: p.high });
      targets.push({ topic: p.topic, partition: p.partition, first: from, last: p.high - 1 });
    }

    let code = 0;
    if (options.wait && targets.length > 0) {
      const waitBar = progressBar('counted  [{bar}] {percentage}% | {value}/{total} offsets applied');
      waitBar?.start(tally.produced, 0);
      const result = await waitApplied(redis, kafka, targets, {
        prefix: config.keyPrefix,
        group: config.consumerGroup,
        timeoutMs: options.timeoutMs,
        onProgress: (applied, total) => {
          waitBar?.setTotal(total);
          waitBar?.update(applied);
        },
      });
      waitBar?.stop();
      if (result.status === 'applied') {
        tally.workerRejected = await workerDeadLetters(
          kafka,
          config.dlqTopic,
          config.backfillTopic,
          before,
          produced,
        );
      } else if (result.status === 'no-worker') {
        process.stderr.write(
          `backfill: no ingest worker is running (consumer group ${result.group} has no members): ` +
            `${result.applied} of ${result.total} produced offsets are applied; the rest stays in ` +
            `${config.backfillTopic} and is counted once a worker runs\n`,
        );
        code = 3;
      } else {
        process.stderr.write(
          `backfill: timed out after ${options.timeoutMs / 1000} s waiting for the ingest worker ` +
            `(${result.applied} of ${result.total} offsets applied; behind: ${result.behind.join(', ')}); ` +
            'the events are in the topic and will be counted: run again with --no-wait to skip waiting\n',
        );
        code = 3;
      }
    } else if (targets.length === 0) {
      tally.workerRejected = new Map();
    }
    tally.seconds = (Date.now() - started) / 1000;
    process.stdout.write(options.json ? `${JSON.stringify(summaryJson(tally))}\n` : formatSummary(tally));
    return code;
  });
}

/** What the ingest worker dead-lettered of the produced offsets (DLQ from before the backfill to now). */
async function workerDeadLetters(
  kafka: ReturnType<typeof cliKafka>,
  dlqTopic: string,
  backfillTopic: string,
  before: readonly { topic: string; partition: number; high: number }[],
  produced: ProducedRanges,
): Promise<Map<string, number>> {
  const now = await topicOffsets(kafka, [dlqTopic]);
  const ranges = now.map((p) => ({
    partition: p.partition,
    from: before.find((b) => b.topic === dlqTopic && b.partition === p.partition)?.high ?? 0,
    to: p.high,
  }));
  const seen = new Set<string>();
  const out = new Map<string, number>();
  await readTopicRanges(kafka, dlqTopic, ranges, (_partition, messages) =>
    tallyWorkerDeadLetters(messages, backfillTopic, produced, seen, out),
  );
  return out;
}

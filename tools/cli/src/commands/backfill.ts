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
 * after a lost response does not write a record twice), and a file backfill keeps a progress record
 * in Redis keyed by the hash of the file's first line (backfill/resume.ts): a run that died resumes
 * where the acknowledged lines end, a file that grew sends only its new lines, a file whose sent
 * lines changed is refused, and a partial last line is not sent (docs/rebuild.md).
 */
import { logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { createProducer } from '@va/producer';
import { clockOf, loadConfig } from '@va/config';
import type { MessageKey } from '@va/contracts';
import { decodeContext } from '@va/ingest';
import { classify } from '../backfill/classify';
import { BackfillProgress } from '../backfill/progress-view';
import { isBlank } from '../backfill/lines';
import { lineHeaders, newRecord, ResumeState, VALID, type LineKind } from '../backfill/resume';
import { openFileBackfill, partialMessage, saveRecord, type OpenedFile } from '../backfill/resume-io';
import { fileSource, topicSource, type Source, type SourceRecord } from '../backfill/source';
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

/** The file changed in a way that would count lines twice: nothing of it is sent (exit 2). */
class Refusal extends Error {}

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
  const file = options.file ? fileSource(options.file) : undefined;
  const source: Source = file ?? (await topicSource(kafka, options.fromTopic!));
  const clock = clockOf(config);
  const started = Date.now();
  const progress = new BackfillProgress((line) => process.stderr.write(`${line}\n`), {
    json: options.json,
    stderrIsTTY: process.stderr.isTTY === true,
  });
  return withRedis(async (redis) => {
    const current = await topicOffsets(kafka, [config.backfillTopic, config.dlqTopic]);
    // A file backfill continues its progress record (backfill/resume.ts); a topic replay starts over.
    let opened: Extract<OpenedFile, { key: string }> | undefined;
    if (options.file) {
      const o = await openFileBackfill(redis, kafka, config, options.file, current, new Date());
      if ('exit' in o) {
        process.stderr.write(`backfill: ${o.message}\n`);
        return o.exit;
      }
      for (const note of o.notes) process.stderr.write(`backfill: ${note}\n`);
      opened = o;
    }
    const key = opened?.key;
    const state =
      opened?.state ?? new ResumeState(newRecord('', source.name, current, new Date()), new Map());
    const record = state.record;
    const before = record.before;
    let partialCode = 0;

    // @va/producer: idempotent batches (a retry after a lost response does not write twice), one at
    // a time, in order; the record moves after each acknowledged batch.
    const producer = createProducer<{ line: number; kind: LineKind; chain: string }>({
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
      progress.update('read', 0, source.total, { read: 0, valid: 0, dead: 0 });
      let ctx = decodeContext(clock(), config.retention);
      let read = 0;
      let valids = 0;
      const ticker = setInterval(
        () =>
          progress.update('read', source.position(), source.total, {
            read,
            valid: valids,
            dead: read - valids,
          }),
        250,
      );
      try {
        await producer.connect();
        const send = async (rec: SourceRecord, line: number, chain: string) => {
          // The decoder's notion of "now" (future and expired events) follows the clock.
          if (++read % 10_000 === 0) ctx = decodeContext(clock(), config.retention);
          const c = classify(rec, ctx, options.key ?? 'apiId');
          if (c.ok) valids++;
          await producer.sendRaw({
            topic: c.ok ? config.backfillTopic : config.dlqTopic,
            key: c.message.key ?? null,
            value: c.message.value,
            headers: opened
              ? { ...c.message.headers, ...lineHeaders(opened.id, line, chain) }
              : c.message.headers,
            ref: { line, kind: c.ok ? VALID : c.reason, chain },
          });
        };
        const held: [SourceRecord, number, string][] = [];
        await source.read(async (rec) => {
          if (!opened || !rec.file) return send(rec, read + 1, '');
          // A file record's offset is its line number.
          const line = Number(rec.offset);
          const { chain, blank } = rec.file;
          if (!blank && file!.identity() !== opened.id)
            throw new Refusal(`${source.name} changed while it was read (its first line is another one)`);
          const verdict = state.decide(line, chain, blank);
          if (typeof verdict === 'object') throw new Refusal(verdict.refuse);
          if (verdict === 'hold') held.push([rec, line, chain]);
          if (verdict === 'send') await send(rec, line, chain);
          if (line === state.lastFound) for (const h of held.splice(0)) await send(...h);
        });
        await producer.flush();
        if (opened && file) {
          const end = file.end();
          const shorter = state.end(end.lines);
          if (shorter) throw new Refusal(shorter);
          const partial = end.partial && !isBlank(end.partial.bytes) ? end.partial : undefined;
          state.finish(end.lines, end.chain, !partial, new Date());
          await saveRecord(redis, opened.key, state.record);
          if (partial) {
            process.stderr.write(`backfill: ${partialMessage(source.name, partial.line)}\n`);
            partialCode = 4;
          }
        } else {
          state.finish(read, '', true, new Date());
        }
      } catch (err) {
        // Every refusal comes before the run sent a line (ResumeState.decide).
        if (!(err instanceof Refusal)) throw err;
        process.stderr.write(`backfill: ${err.message}\n`);
        return 2;
      } finally {
        clearInterval(ticker);
        progress.update('read', source.total, source.total, { read, valid: valids, dead: read - valids });
        progress.stop();
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
      progress.update('counted', 0, tally.produced);
      const result = await waitApplied(redis, kafka, targets, {
        prefix: config.keyPrefix,
        group: config.consumerGroup,
        timeoutMs: options.timeoutMs,
        onProgress: (applied, total) => progress.update('counted', applied, total),
      });
      progress.stop();
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
    return code || partialCode;
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

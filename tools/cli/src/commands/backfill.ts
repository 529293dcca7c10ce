/**
 * `backfill`: replays old events into the counters without double counting (README "Operations").
 *
 * Every event is checked with the ingest worker's own decoder; valid ones go to the backfill
 * topic (key = apiId), which the ingest worker consumes beside the live topic with the same
 * exactly-once protocol (and pauses while live traffic lags); invalid ones go to the DLQ in the
 * worker's format. Then the command waits until the worker has applied every produced offset (the
 * watermark of each backfill partition in the current generation) and prints what happened. Options: ../program/backfill.ts.
 */
import { Partitioners } from 'kafkajs';
import { SingleBar, Presets } from 'cli-progress';
import { clockOf, loadConfig } from '@va/config';
import { decodeContext } from '@va/ingest';
import { classify } from '../backfill/classify';
import { ChunkSender } from '../backfill/sender';
import { fileSource, topicSource, type Source } from '../backfill/source';
import {
  bump,
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
  const tally: BackfillTally = {
    source: source.name,
    topic: config.backfillTopic,
    read: 0,
    produced: 0,
    rejected: new Map(),
    workerRejected: null,
    seconds: 0,
  };

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    const before = await topicOffsets(kafka, [config.backfillTopic, config.dlqTopic]);
    const valid = new ChunkSender(producer, config.backfillTopic);
    const dead = new ChunkSender(producer, config.dlqTopic, 500);

    const bar = progressBar(
      'read     [{bar}] {percentage}% | {read} read, {valid} valid, {dead} dead-lettered',
    );
    bar?.start(Math.max(source.total, 1), 0, { read: 0, valid: 0, dead: 0 });
    let ctx = decodeContext(clock(), config.retention);
    let valids = 0;
    const ticker = setInterval(
      () => bar?.update(source.position(), { read: tally.read, valid: valids, dead: tally.read - valids }),
      250,
    );
    try {
      await source.read(async (record) => {
        // The decoder's notion of "now" (future and expired events) follows the clock.
        if (++tally.read % 10_000 === 0) ctx = decodeContext(clock(), config.retention);
        const c = classify(record, ctx);
        if (c.ok) {
          valids++;
          await valid.push(c.message);
        } else {
          bump(tally.rejected, c.reason);
          await dead.push(c.message);
        }
      });
      await Promise.all([valid.flush(), dead.flush()]);
    } finally {
      clearInterval(ticker);
      bar?.update(source.total, { read: tally.read, valid: valids, dead: tally.read - valids });
      bar?.stop();
    }
    tally.produced = valid.sent;

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
      const result = await withRedis((redis) =>
        waitApplied(redis, kafka, targets, {
          prefix: config.keyPrefix,
          group: config.consumerGroup,
          timeoutMs: options.timeoutMs,
          onProgress: (applied, total) => {
            waitBar?.setTotal(total);
            waitBar?.update(applied);
          },
        }),
      );
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
  } finally {
    await producer.disconnect();
  }
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

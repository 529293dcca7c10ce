/**
 * The ingest worker: a kafkajs consumer-group member that feeds partition batches to the
 * BatchProcessor (the exactly-once protocol) and keeps Kafka's position in step with the
 * progress stored in Redis.
 *
 * Redis is the source of truth for progress. On every group join each assigned partition is
 * sought to `wm + 1` (wm from Redis; none -> offset 0, which Kafka resets to the earliest one).
 * Before a batch is prepared the worker checks that it was fetched right after the previous one
 * (`position + 1`); otherwise it seeks back first (a fetch that raced the seek, or Kafka's committed
 * offset ahead of a Redis that lost its last second). Offsets are committed to Kafka now and then,
 * for lag dashboards only.
 *
 * Pipelining: a batch is prepared (decode, DLQ, codes, pre-aggregation: CPU) while the previous
 * batch of the same partition is still being committed to Redis; its offset is resolved at once so
 * that kafkajs fetches the next one meanwhile. That is safe because Kafka's position is only a hint:
 * the commits of a partition run in order, each CAS-checked against the wm the previous one set,
 * and when one fails the partition's queued commits are dropped and it is sought back to Redis'
 * `wm + 1`. At most one commit per partition is in flight.
 *
 * Live before backfill: both topics are consumed by the same group, several partitions at once
 * (partitionsConsumedConcurrently); while the live partitions of this worker are more than
 * `backfillPauseLag` messages behind, the backfill topic is paused, and resumed below
 * `backfillResumeLag`. A backfill therefore only uses the capacity live traffic leaves.
 */
import { Kafka, Partitioners, type Consumer, type EachBatchPayload, type Producer } from 'kafkajs';
import { clockOf, DEFAULT_INGEST_SETTINGS, type Config, type IngestSettings } from '@va/config';
import type { Logger } from '@va/runtime';
import { readWatermark, type RedisClient } from '@va/store';
import { BatchProcessor, type BatchProcessorDeps, type PreparedBatch } from './batch-processor';
import { deadLetterMessage, type DeadLetter } from './dead-letter';
import { pinoLogCreator } from './kafka-logger';
import type { IngestMetrics } from './metrics';

export interface IngestWorkerDeps {
  config: Config;
  /** A connected client; the worker drops its caches whenever it reconnects. */
  redis: RedisClient;
  logger: Logger;
  metrics: IngestMetrics;
  settings?: Partial<IngestSettings>;
  /** Defaults to a client for config.kafkaBrokers. */
  kafka?: Kafka;
  /** The consumer crashed for good (kafkajs will not restart it): the process should exit. */
  onFatal?: (err: Error) => void;
  /** Rebuild (docs/rebuild.md): write into this generation only; the live worker follows `<p>:gen`. */
  generation?: number;
  /** Rebuild: replaces producing to the DLQ (a replay must not dead-letter the same records again). */
  deadLetter?: (records: DeadLetter[]) => Promise<void>;
  /** Rebuild --since: see BatchProcessorDeps.skipEvent. */
  skipEvent?: BatchProcessorDeps['skipEvent'];
}

export interface IngestWorker {
  start(): Promise<void>;
  /** Finishes the batch in flight, leaves the group, disconnects from Kafka. */
  stop(): Promise<void>;
  /** Joined the group and consuming. */
  healthy(): boolean;
}

interface PartitionState {
  /**
   * The wm Redis will hold once every queued commit succeeds (the last offset handed to a commit);
   * undefined = unknown: re-read from Redis before the next batch.
   */
  position: number | undefined;
  /** Offset of the last seek: a fetch starting later than it means Kafka no longer has those offsets. */
  soughtTo: number | undefined;
  /** Bumped by every resync: queued commits of an older lineage are dropped. */
  lineage: number;
  /** The last queued commit (never rejects). */
  tail: Promise<void>;
  /** Resync started by the group join. */
  loading: Promise<void> | undefined;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tpKey = (topic: string, partition: number) => `${topic}/${partition}`;

export function createIngestWorker(deps: IngestWorkerDeps): IngestWorker {
  const { config, redis, logger, metrics } = deps;
  const settings: IngestSettings = { ...DEFAULT_INGEST_SETTINGS, ...deps.settings };
  const kafka =
    deps.kafka ??
    new Kafka({ clientId: 'va-ingest', brokers: config.kafkaBrokers, logCreator: pinoLogCreator(logger) });
  const consumer: Consumer = kafka.consumer({
    groupId: config.consumerGroup,
    sessionTimeout: settings.sessionTimeout,
    heartbeatInterval: settings.heartbeatInterval,
    rebalanceTimeout: settings.rebalanceTimeout,
    maxBytesPerPartition: settings.maxBytesPerPartition,
    maxBytes: settings.maxBytes,
    minBytes: settings.minBytes,
    maxWaitTimeInMs: settings.maxWaitTimeInMs,
  });
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });

  const deadLetter =
    deps.deadLetter ??
    (async (records: DeadLetter[]) => {
      await producer.send({ topic: config.dlqTopic, acks: -1, messages: records.map(deadLetterMessage) });
      for (const r of records) metrics.deadLettered.inc({ reason: r.reason });
    });
  const processor = new BatchProcessor({
    redis,
    prefix: config.keyPrefix,
    retention: config.retention,
    clock: clockOf(config),
    deadLetter,
    logger,
    ...(deps.generation !== undefined && { generation: deps.generation }),
    ...(deps.skipEvent && { skipEvent: deps.skipEvent }),
  });

  const states = new Map<string, PartitionState>();
  const liveLag = new Map<number, number>();
  const active = new Set<Promise<unknown>>();
  let backfillPaused = false;
  let joined = false;
  let running = false;
  let stopping = false;

  const stateOf = (topic: string, partition: number): PartitionState => {
    const key = tpKey(topic, partition);
    let st = states.get(key);
    if (!st) {
      st = {
        position: undefined,
        soughtTo: undefined,
        lineage: 0,
        tail: Promise.resolve(),
        loading: undefined,
      };
      states.set(key, st);
    }
    return st;
  };

  /** Track a promise for stop() (batches and commits in flight). */
  function track<T>(p: Promise<T>): Promise<T> {
    active.add(p);
    void p.finally(() => active.delete(p)).catch(() => undefined);
    return p;
  }

  /**
   * Drop the partition's queued commits, re-read wm from Redis and move Kafka's position to
   * wm + 1. If Redis cannot be read, the position stays unknown and the next batch tries again.
   */
  async function resync(topic: string, partition: number, st: PartitionState): Promise<void> {
    st.lineage++;
    st.position = undefined;
    processor.forgetPartition(topic, partition);
    const lineage = st.lineage;
    const space = await processor.keySpace();
    const wm = await readWatermark(redis, space, topic, partition);
    if (st.lineage !== lineage) return; // another resync overtook this one
    consumer.seek({ topic, partition, offset: String(wm + 1) });
    st.position = wm;
    st.soughtTo = wm + 1;
  }

  // A Redis reconnect dropped every cache: every partition re-reads its wm before its next batch.
  processor.onReset(() => {
    for (const st of states.values()) {
      st.lineage++;
      st.position = undefined;
    }
  });

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    joined = true;
    // Commits still in flight from before the rebalance finish first, so that the wm read below
    // already includes them.
    const drained = Promise.all([...states.values()].map((st) => st.tail));
    states.clear();
    liveLag.clear();
    if (backfillPaused) {
      consumer.resume([{ topic: config.backfillTopic }]);
      backfillPaused = false;
    }
    logger.info({ assignment: payload.memberAssignment }, 'joined the consumer group');
    for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
      for (const partition of partitions) {
        const st = stateOf(topic, partition);
        st.loading = drained
          .then(() => resync(topic, partition, st))
          .catch((err: unknown) => {
            logger.warn(
              { err, topic, partition },
              'could not read the watermark on join; retrying with the batch',
            );
          })
          .finally(() => {
            st.loading = undefined;
          });
      }
    }
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error({ err: payload.error, restart: payload.restart }, 'consumer crashed');
    if (!payload.restart) {
      joined = false;
      deps.onFatal?.(payload.error);
    }
  });

  function steerBackfill(topic: string, partition: number, lag: number): void {
    if (topic !== config.topic) return;
    liveLag.set(partition, lag);
    let total = 0;
    for (const l of liveLag.values()) total += l;
    if (!backfillPaused && total > settings.backfillPauseLag) {
      consumer.pause([{ topic: config.backfillTopic }]);
      backfillPaused = true;
      logger.info({ liveLag: total }, 'live traffic is behind: backfill paused');
    } else if (backfillPaused && total < settings.backfillResumeLag) {
      consumer.resume([{ topic: config.backfillTopic }]);
      backfillPaused = false;
      logger.info({ liveLag: total }, 'live traffic caught up: backfill resumed');
    }
  }

  /** Runs one prepared batch's commit after the partition's previous one (chained on st.tail). */
  async function commitInTurn(
    st: PartitionState,
    lineage: number,
    prepared: PreparedBatch,
    expectedWm: number,
    highWatermark: number,
    endTimer: () => void,
  ): Promise<void> {
    if (st.lineage !== lineage) return; // an earlier commit failed: the partition was sought back
    const { topic, partition } = prepared;
    try {
      const outcome = await processor.commit(prepared, expectedWm);
      if (outcome.status === 'conflict') {
        metrics.resyncs.inc({ cause: outcome.cause });
        if (outcome.cause === 'sealed') {
          // A rebuild's switch is sealing the APIs (milliseconds): wait a moment instead of spinning.
          logger.info({ topic, partition, detail: outcome.detail }, 'generation switching: retry');
          await sleep(Math.min(settings.retryBackoffMs, 100));
        } else {
          logger.warn(
            { topic, partition, cause: outcome.cause, detail: outcome.detail },
            'CAS failed: resync',
          );
        }
        await resync(topic, partition, st);
        return;
      }
      endTimer();
      metrics.applied.inc(outcome.applied);
      metrics.skipped.inc(outcome.skipped);
      if (outcome.skipped > 0) {
        logger.info(
          { topic, partition, skipped: outcome.skipped },
          'skipped redelivered events Redis already holds',
        );
      }
      const lag = Math.max(0, highWatermark - 1 - prepared.lastOffset);
      metrics.lag.set({ topic, partition: String(partition) }, lag);
      steerBackfill(topic, partition, lag);
    } catch (err) {
      // Redis failed mid-commit: some APIs may be applied. Seek back to what Redis holds.
      metrics.resyncs.inc({ cause: 'error' });
      logger.error({ err, topic, partition }, 'commit failed: will retry from the watermark');
      await sleep(settings.retryBackoffMs);
      await resync(topic, partition, st).catch(() => {
        st.lineage++;
        st.position = undefined;
      });
    }
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, isRunning, isStale, commitOffsetsIfNecessary, heartbeat } = payload;
    if (stopping || !isRunning() || isStale() || batch.isEmpty()) return;
    const { topic, partition } = batch;
    const st = stateOf(topic, partition);
    try {
      if (st.loading) await st.loading;
      // A rebuild switched generations: the reset marks every partition unknown, so this one (and
      // each other one with its next batch) re-reads its wm in the new generation and seeks there.
      if (await processor.generationSwitched()) metrics.resyncs.inc({ cause: 'generation' });
      if (st.position === undefined) {
        metrics.resyncs.inc({ cause: 'unknown-wm' });
        await resync(topic, partition, st);
        return;
      }
      if (isStale()) return; // a seek is pending: this batch was fetched from the old position
      const position = st.position;
      // First offset served (control records included): position + 1 unless the fetch started elsewhere.
      const fetched = Number(batch.firstOffset() ?? batch.lastOffset());
      if (fetched > position + 1) {
        if (st.soughtTo !== position + 1) {
          metrics.resyncs.inc({ cause: 'position' });
          logger.warn({ topic, partition, fetched, position }, 'fetched past the watermark: seeking back');
          await resync(topic, partition, st);
          return;
        }
        logger.warn(
          { topic, partition, fetched, wm: position },
          'Kafka no longer holds offsets after the watermark',
        );
      }
      st.soughtTo = undefined;
      const lastOffset = Number(batch.lastOffset());
      if (lastOffset <= position) {
        resolveOffset(batch.lastOffset());
        return;
      }

      const lineage = st.lineage;
      const endTimer = metrics.batchApplySeconds.startTimer();
      const prepared = await processor.prepare(
        { topic, partition, messages: batch.messages, lastOffset },
        position,
      );
      if (st.lineage !== lineage || stopping) return; // a commit failed meanwhile, or we are stopping
      if (prepared.status === 'conflict') {
        metrics.resyncs.inc({ cause: prepared.cause });
        await resync(topic, partition, st);
        return;
      }
      st.position = lastOffset;
      resolveOffset(batch.lastOffset());
      const previous = st.tail;
      const highWatermark = Number(batch.highWatermark);
      st.tail = track(
        previous.then(() => commitInTurn(st, lineage, prepared, position, highWatermark, endTimer)),
      );
      // Return (and let kafkajs fetch the next batch) once the previous commit is done: one commit
      // in flight per partition while the next batch is fetched and prepared.
      await previous;
      await commitOffsetsIfNecessary().catch((err: unknown) => {
        logger.debug({ err }, 'offset commit failed (only a hint)');
      });
    } catch (err) {
      // Redis or the DLQ producer failed while preparing. Nothing was resolved, so Kafka serves the
      // batch again; the position is re-read first.
      metrics.resyncs.inc({ cause: 'error' });
      logger.error({ err, topic, partition }, 'batch failed: will retry');
      st.lineage++;
      st.position = undefined;
      await sleep(settings.retryBackoffMs);
      await heartbeat().catch(() => undefined);
    }
  }

  return {
    async start() {
      await processor.keySpace();
      await producer.connect();
      await consumer.connect();
      await consumer.subscribe({ topics: [config.topic, config.backfillTopic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        autoCommitInterval: settings.commitEveryMs,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: settings.partitionsConsumedConcurrently,
        eachBatch: (payload) => track(eachBatch(payload)),
      });
      running = true;
    },
    async stop() {
      // Finish what is in flight (its progress is stored with it), then leave the group.
      stopping = true;
      while (active.size > 0) await Promise.allSettled([...active]);
      running = false;
      await consumer.disconnect();
      await producer.disconnect();
    },
    healthy: () => running && joined,
  };
}

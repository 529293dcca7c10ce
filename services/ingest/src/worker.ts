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
 * Recovery never waits for a next batch: a dropped batch was resolved already, so Kafka serves nothing more
 * until newer events arrive. A partition left without a known position (its wm could not be read: the API's
 * slots have no master during a failover, a reset overtook the read) is resynced again and again, with backoff,
 * until Redis answers (recover).
 *
 * Live before backfill: both topics are consumed by the same group, several partitions at once
 * (partitionsConsumedConcurrently); core/backfill-throttle.ts pauses the backfill topic while the
 * live partitions of this worker are behind. A backfill therefore only uses the capacity live
 * traffic leaves.
 *
 * The decisions are the core's (core/partition-state.ts per partition, core/batch-protocol.ts per
 * batch); this file wires them to kafkajs (adapters/kafka.ts) and Redis (adapters/redis-store.ts).
 */
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { clockOf, DEFAULT_INGEST_SETTINGS, type Config, type IngestSettings } from '@va/config';
import type { Logger } from '@va/runtime';
import type { RedisClient } from '@va/store';
import {
  consumerControl,
  dlqProducer,
  ingestConsumer,
  kafkaClient,
  produceDeadLetters,
} from './adapters/kafka';
import { BatchProcessor, type BatchProcessorDeps } from './batch-processor';
import { BackfillThrottle } from './core/backfill-throttle';
import { PartitionState } from './core/partition-state';
import { nextOffset, type Offset, type PreparedBatch } from './core/types';
import type { DeadLetter } from './dead-letter';
import type { IngestMetrics } from './metrics';
import { untilRedisAnswers } from './until-redis-answers';

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tpKey = (topic: string, partition: number) => `${topic}/${partition}`;
/** The longest pause between two attempts to read a partition's wm while Redis does not answer. */
const MAX_RECOVERY_BACKOFF_MS = 2_000;

interface Assigned {
  topic: string;
  partition: number;
  st: PartitionState;
}

export function createIngestWorker(deps: IngestWorkerDeps): IngestWorker {
  const { config, redis, logger, metrics } = deps;
  const settings: IngestSettings = { ...DEFAULT_INGEST_SETTINGS, ...deps.settings };
  const kafka = deps.kafka ?? kafkaClient(config, logger);
  const consumer: Consumer = ingestConsumer(kafka, config, settings);
  const control = consumerControl(consumer);
  const producer = dlqProducer(kafka);

  const produce = produceDeadLetters(producer, config.dlqTopic);
  const deadLetter =
    deps.deadLetter ??
    (async (records: DeadLetter[]) => {
      await produce(records);
      for (const r of records) metrics.deadLettered.inc({ reason: r.reason });
    });
  const processor = new BatchProcessor({
    redis,
    prefix: config.keyPrefix,
    retention: config.retention,
    clock: clockOf(config),
    deadLetter,
    logger,
    replicaWait: { replicas: settings.waitReplicas, timeoutMs: settings.waitTimeoutMs },
    ...(deps.generation !== undefined && { generation: deps.generation }),
    ...(deps.skipEvent && { skipEvent: deps.skipEvent }),
    ...(settings.maxWritesPerCall > 0 && { maxWritesPerCall: settings.maxWritesPerCall }),
  });

  const states = new Map<string, Assigned>();
  const throttle = new BackfillThrottle(settings.backfillPauseLag, settings.backfillResumeLag);
  const active = new Set<Promise<unknown>>();
  let joined = false;
  let running = false;
  let stopping = false;

  const stateOf = (topic: string, partition: number): PartitionState => {
    const key = tpKey(topic, partition);
    let assigned = states.get(key);
    if (!assigned) states.set(key, (assigned = { topic, partition, st: new PartitionState() }));
    return assigned.st;
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
    const lineage = st.beginResync();
    processor.forgetPartition(topic, partition);
    const wm = await processor.readWatermark(topic, partition);
    if (st.resynced(lineage, wm)) control.seek(topic, partition, nextOffset(wm));
  }

  /**
   * Resyncs until the partition's position is known again, the partition is no longer this worker's, or the
   * worker stops; one loop per partition. Each attempt is bounded (every Redis command by INGEST_REDIS_TIMEOUT_MS),
   * the pause between attempts doubles from the retry backoff up to MAX_RECOVERY_BACKOFF_MS.
   */
  function recover(topic: string, partition: number, st: PartitionState): void {
    if (st.recovering) return;
    const key = tpKey(topic, partition);
    const lost = () => stopping || states.get(key)?.st !== st || st.position !== undefined;
    st.recovering = track(
      (async () => {
        for (let attempt = 1; !lost(); attempt++) {
          await sleep(Math.min(settings.retryBackoffMs * 2 ** (attempt - 1), MAX_RECOVERY_BACKOFF_MS));
          if (lost()) return;
          try {
            await resync(topic, partition, st);
          } catch (err) {
            logger.warn({ err, topic, partition, attempt }, 'could not read the watermark: retrying');
          }
        }
      })().finally(() => {
        st.recovering = undefined;
      }),
    );
  }

  /** Resyncs now; when that fails (or a reset overtook it), recovers in the background. Never rejects. */
  async function resyncOrRecover(topic: string, partition: number, st: PartitionState): Promise<void> {
    try {
      await resync(topic, partition, st);
    } catch (err) {
      logger.warn({ err, topic, partition }, 'could not read the watermark: retrying');
    }
    if (st.position === undefined) recover(topic, partition, st);
  }

  // A Redis reconnect dropped every cache and the queued commits: every partition re-reads its wm.
  processor.onReset(() => {
    for (const { topic, partition, st } of states.values()) {
      st.invalidate();
      recover(topic, partition, st);
    }
  });

  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    joined = true;
    // Commits still in flight from before the rebalance finish first, so that the wm read below
    // already includes them.
    const drained = Promise.all([...states.values()].map(({ st }) => st.tail));
    states.clear();
    if (throttle.reset() === 'resume') control.resume(config.backfillTopic);
    logger.info({ assignment: payload.memberAssignment }, 'joined the consumer group');
    for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
      for (const partition of partitions) {
        const st = stateOf(topic, partition);
        // Kafka starts the partition at its committed offset, a hint that may be past the wm: without the wm
        // the partition recovers until Redis answers.
        st.loading = drained
          .then(() => resyncOrRecover(topic, partition, st))
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
    const { action, total } = throttle.observe(partition, lag);
    if (action === 'pause') {
      control.pause(config.backfillTopic);
      logger.info({ liveLag: total }, 'live traffic is behind: backfill paused');
    } else if (action === 'resume') {
      control.resume(config.backfillTopic);
      logger.info({ liveLag: total }, 'live traffic caught up: backfill resumed');
    }
  }

  /** Runs one prepared batch's commit after the partition's previous one (chained on st.tail). */
  async function commitInTurn(
    st: PartitionState,
    lineage: number,
    prepared: PreparedBatch,
    expectedWm: Offset,
    highWatermark: number,
    endTimer: () => void,
  ): Promise<void> {
    if (st.lineage !== lineage) return; // an earlier commit failed: the partition was sought back
    const { topic, partition } = prepared;
    try {
      const outcome = await processor.commit(prepared, expectedWm);
      if (outcome.status === 'conflict') {
        metrics.resyncs.inc({ cause: outcome.cause });
        if (outcome.cause === 'retired') {
          // A rebuild's switch is retiring the APIs (milliseconds): wait a moment instead of spinning.
          logger.info({ topic, partition, detail: outcome.detail }, 'generation switching: retry');
          await sleep(Math.min(settings.retryBackoffMs, 100));
        } else {
          logger.warn(
            { topic, partition, cause: outcome.cause, detail: outcome.detail },
            'CAS failed: resync',
          );
        }
        await resyncOrRecover(topic, partition, st);
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
      await resyncOrRecover(topic, partition, st);
    }
  }

  async function eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, isRunning, isStale, commitOffsetsIfNecessary, heartbeat } = payload;
    if (stopping || !isRunning() || isStale() || batch.isEmpty()) return;
    const { topic, partition } = batch;
    const st = stateOf(topic, partition);
    // kafkajs heartbeats only between batches; one batch (prepare, then waiting for the previous
    // commit) can outlast the session over a backlog, and a member dropped each time never commits.
    // Heartbeating while it runs is safe: a heartbeat cannot renew an assignment the coordinator
    // has revoked (it answers REBALANCE_IN_PROGRESS, ignored here; kafkajs rejoins on its next
    // fetch), and a batch applied by a member that lost the partition is refused by the commit's
    // watermark compare-and-set, as after any rebalance.
    const keepAlive = setInterval(() => {
      heartbeat().catch(() => undefined);
    }, settings.heartbeatInterval);
    try {
      if (st.loading) await st.loading;
      // A rebuild switched generations: the reset marks every partition unknown, so this one (and
      // each other one with its next batch) re-reads its wm in the new generation and seeks there.
      if (await processor.generationSwitched()) metrics.resyncs.inc({ cause: 'generation' });
      if (st.position !== undefined && isStale()) return; // a seek is pending: fetched from the old position
      const lastOffset = Number(batch.lastOffset());
      const verdict = st.check(Number(batch.firstOffset() ?? batch.lastOffset()), lastOffset);
      if (verdict.action === 'resync') {
        metrics.resyncs.inc({ cause: verdict.cause });
        if (verdict.cause === 'position') {
          logger.warn(
            { topic, partition, position: st.position },
            'fetched past the watermark: seeking back',
          );
        }
        await resync(topic, partition, st);
        return;
      }
      if (verdict.action === 'ignore') {
        resolveOffset(batch.lastOffset());
        return;
      }
      const wm = verdict.wm;
      if (verdict.gap) {
        logger.warn({ topic, partition, wm }, 'Kafka no longer holds offsets after the watermark');
      }

      const lineage = st.lineage;
      const endTimer = metrics.batchApplySeconds.startTimer();
      const prepared = await processor.prepare(
        { topic, partition, messages: batch.messages, lastOffset },
        wm,
      );
      if (st.lineage !== lineage || stopping) return; // a commit failed meanwhile, or we are stopping
      if (prepared.status === 'conflict') {
        metrics.resyncs.inc({ cause: prepared.cause });
        await resync(topic, partition, st);
        return;
      }
      st.queued(lineage, lastOffset);
      resolveOffset(batch.lastOffset());
      const previous = st.tail;
      const highWatermark = Number(batch.highWatermark);
      st.tail = track(previous.then(() => commitInTurn(st, lineage, prepared, wm, highWatermark, endTimer)));
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
      st.invalidate();
      await sleep(settings.retryBackoffMs);
      await heartbeat().catch(() => undefined);
    } finally {
      clearInterval(keepAlive);
    }
  }

  return {
    async start() {
      await untilRedisAnswers('the key space', () => processor.keySpace(), logger);
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

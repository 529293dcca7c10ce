/**
 * Reads given offset ranges of a topic once, in order per partition (the `backfill --from-topic`
 * source and the DLQ read-back of the backfill summary). kafkajs only consumes through a group:
 * a throwaway group that commits nothing and is deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka, KafkaMessage } from 'kafkajs';

/** Offsets [from, to) of one partition. */
export interface OffsetRange {
  partition: number;
  from: number;
  to: number;
}

/** Without a new batch for this long, the read gives up (a broker that never assigns the partitions). */
const IDLE_TIMEOUT_MS = 120_000;

export async function readTopicRanges(
  kafka: Kafka,
  topic: string,
  ranges: readonly OffsetRange[],
  onMessages: (partition: number, messages: KafkaMessage[]) => Promise<void> | void,
): Promise<void> {
  const wanted = new Map(ranges.filter((r) => r.to > r.from).map((r) => [r.partition, r]));
  if (wanted.size === 0) return;
  const groupId = `va-cli-read-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 200 });
  let finish!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => fail(payload.error));
  let lastBatch = Date.now();
  let watchdog: NodeJS.Timeout | undefined;
  await consumer.connect();
  try {
    watchdog = setInterval(() => {
      if (Date.now() - lastBatch > IDLE_TIMEOUT_MS)
        fail(new Error(`reading ${topic}: nothing received for ${IDLE_TIMEOUT_MS / 1000} s`));
    }, 1_000);
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        lastBatch = Date.now();
        const range = wanted.get(batch.partition);
        if (!range) return;
        const messages = batch.messages.filter((m) => {
          const offset = Number(m.offset);
          return offset >= range.from && offset < range.to;
        });
        if (messages.length > 0) await onMessages(batch.partition, messages);
        if (Number(batch.lastOffset()) >= range.to - 1) {
          wanted.delete(batch.partition);
          consumer.pause([{ topic, partitions: [batch.partition] }]);
          if (wanted.size === 0) finish();
        }
      },
    });
    for (const r of wanted.values()) consumer.seek({ topic, partition: r.partition, offset: String(r.from) });
    const unwanted = ranges.filter((r) => !wanted.has(r.partition)).map((r) => r.partition);
    if (unwanted.length > 0) consumer.pause([{ topic, partitions: unwanted }]);
    await done;
  } finally {
    clearInterval(watchdog);
    await consumer.disconnect();
    const admin = kafka.admin();
    await admin
      .connect()
      .then(() => admin.deleteGroups([groupId]))
      .catch(() => undefined)
      .finally(() => admin.disconnect());
  }
}

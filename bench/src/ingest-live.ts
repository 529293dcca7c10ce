/**
 * Ingest throughput on live-shaped traffic: the same mix of APIs, keys, identities and tags, but all
 * times within the last 30 minutes, as the live topic carries them. The historical data set spreads
 * its events over 90 days, so nearly every event lands in an hour bucket of its own and the worker's
 * pre-aggregation has nothing to merge: that is the backfill case. Live traffic is the case the
 * 250k events/s goal is about. Own prefix and topics, removed afterwards.
 */
import { phase, type RunContext } from './context';
import { messagesOver, totalEvents } from './dataset';
import { ingestTopic } from './ingest-topic';
import { deleteTopics, recreateTopics } from './kafka';
import { namesFor } from './names';
import type { IngestResult } from './phases/ingest';
import { produceAll, type ProduceResult } from './phases/produce';
import { deletePrefix } from './redis-keys';

const SPAN_MS = 30 * 60_000;

export async function ingestLive(
  ctx: RunContext,
  dataSetPrefix: string,
): Promise<{ produce: ProduceResult; ingest: IngestResult }> {
  const { redis, kafka, options } = ctx;
  const names = namesFor(`${dataSetPrefix}-live`);
  await deletePrefix(redis, names.prefix);
  await recreateTopics(kafka, names);
  try {
    const events = options.liveEvents;
    const now = Date.now();
    const source = messagesOver(options.seed + 13, events, now - SPAN_MS, SPAN_MS);
    const produce = await phase(ctx, 'produce-live', () =>
      produceAll(kafka, names.topic, source, totalEvents({ events })),
    );
    const ingest = await phase(ctx, 'ingest-live', () => ingestTopic(ctx, names));
    return { produce, ingest };
  } finally {
    await deleteTopics(kafka, names);
    await deletePrefix(redis, names.prefix);
  }
}

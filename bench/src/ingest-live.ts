/**
 * Ingest throughput on live-shaped traffic: the same mix of APIs, keys, identities and tags, but all
 * times within the last 30 minutes, as the live topic carries them. The historical data set spreads
 * its events over 90 days, so nearly every event lands in an hour bucket of its own and the worker's
 * pre-aggregation has nothing to merge: that is the backfill case. Live traffic is the case the
 * 250k events/s goal is about. Own prefix and topics, removed afterwards.
 */
import { declareBillingZone } from '@va/store';
import { phase, type RunContext } from './context';
import { MEDIUM_API, messagesOver, totalEvents } from './dataset';
import { ingestTopic } from './ingest-topic';
import { deleteTopics, recreateTopics } from './kafka';
import { namesFor, type BenchNames } from './names';
import type { IngestResult } from './phases/ingest';
import { produceAll, type ProduceResult } from './phases/produce';
import { deletePrefix } from './redis-keys';

const SPAN_MS = 30 * 60_000;

/** The live-shaped events (--live-events, times in the last 30 minutes) into the names' empty topic. */
export function produceLiveShaped(ctx: RunContext, names: BenchNames): Promise<ProduceResult> {
  const events = ctx.options.liveEvents;
  const now = Date.now();
  const source = messagesOver(ctx.options.seed + 13, events, now - SPAN_MS, SPAN_MS);
  return phase(ctx, 'produce-live', () =>
    produceAll(ctx.kafka, names.topic, source, totalEvents({ events })),
  );
}

export async function ingestLive(
  ctx: RunContext,
  dataSetPrefix: string,
): Promise<{ produce: ProduceResult; ingest: IngestResult }> {
  const { redis, kafka } = ctx;
  const names = namesFor(`${dataSetPrefix}-live`);
  await deletePrefix(redis, names.prefix);
  await recreateTopics(kafka, names);
  // As the data set's: the medium API counts its billing zone's edges from its first live event.
  if (ctx.options.billingZone)
    await declareBillingZone(redis, names.prefix, MEDIUM_API, ctx.options.billingZone);
  try {
    const produce = await produceLiveShaped(ctx, names);
    const ingest = await phase(ctx, 'ingest-live', () => ingestTopic(ctx, names));
    return { produce, ingest };
  } finally {
    await deleteTopics(kafka, names);
    await deletePrefix(redis, names.prefix);
  }
}

/** One ingest worker process consumes a pre-produced topic from its start: the throughput measurement. */
import { prepareService, type RunContext } from './context';
import { lastOffsets } from './kafka';
import type { BenchNames } from './names';
import { measureIngest, type IngestResult } from './phases/ingest';
import { localBrokerPid } from '@va/testkit';

/** Longer than any sane run on the 2-core machine; a stuck phase fails instead of hanging. */
export const PHASE_TIMEOUT_MS = 3 * 3_600_000;

export async function ingestTopic(ctx: RunContext, names: BenchNames): Promise<IngestResult> {
  const ends = await lastOffsets(ctx.kafka, names.topic);
  const ingest = await prepareService(ctx, 'ingest', names);
  const { result, worker } = await measureIngest({
    redis: ctx.redis,
    prefix: names.prefix,
    topic: names.topic,
    ends,
    metricsUrl: ingest.metricsUrl,
    kafkaPid: localBrokerPid(ctx.servers.kafkaBrokers[0]),
    start: ingest.start,
    timeoutMs: PHASE_TIMEOUT_MS,
  });
  await worker.stop();
  return result;
}

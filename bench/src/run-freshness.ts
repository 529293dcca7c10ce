/** The freshness phase's setup and teardown around phases/freshness.ts. */
import { registerApi } from '@va/store';
import { prepareService, type RunContext } from './context';
import { MEDIUM_WORKSPACE } from './dataset';
import { deleteTopics, recreateTopics } from './kafka';
import { namesFor } from './names';
import { measureFreshness, PROBE_API, type FreshnessResult } from './phases/freshness';
import { deletePrefix } from './redis-keys';
import { rootKeyFor } from './run-queries';

/**
 * Freshness runs on names of its own (an empty prefix and fresh topics, removed afterwards): its
 * live traffic must not change the data set that later runs reuse, and the worker must start at
 * the head of an empty topic rather than behind a backlog.
 */
export async function freshness(ctx: RunContext, dataSetPrefix: string): Promise<FreshnessResult> {
  const { redis, kafka, options } = ctx;
  const names = namesFor(`${dataSetPrefix}-fresh`);
  await deletePrefix(redis, names.prefix);
  await recreateTopics(kafka, names);
  await registerApi(redis, names.prefix, PROBE_API, MEDIUM_WORKSPACE);
  const rootKey = await rootKeyFor(redis, names.prefix);
  const ingest = await prepareService(ctx, 'ingest', names);
  const query = await prepareService(ctx, 'query', names);
  const services = [ingest.start(), query.start()];
  try {
    await services[0]!.waitHealthy(`${ingest.baseUrl}/health`, 120_000);
    await services[1]!.waitHealthy(`${query.baseUrl}/health`);
    return await measureFreshness({
      kafka,
      topic: names.topic,
      baseUrl: query.baseUrl,
      rootKey,
      rate: options.freshnessRate,
      seconds: options.freshnessSeconds,
      warmupSeconds: 5,
      probeEveryMs: 100,
      seed: options.seed + 7,
    });
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    await deleteTopics(kafka, names);
    await deletePrefix(redis, names.prefix);
  }
}

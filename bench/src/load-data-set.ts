/**
 * Loading the data set, measured on the way: produce it into a fresh topic, ingest it with one
 * worker, compact it. With --skip-produce the data set of an earlier run is reused and only the
 * compaction catch-up runs (hours keep closing meanwhile).
 */
import { loadConfig } from '@va/config';
import { phase, prepareService, type RunContext } from './context';
import { declareBillingZone } from '@va/store';
import { dataSetMessages, MEDIUM_API, totalEvents, type DataSetSpec } from './dataset';
import { ingestTopic, PHASE_TIMEOUT_MS } from './ingest-topic';
import { recreateTopics } from './kafka';
import { log } from './log';
import { readMeta, writeMeta, type DataSetMeta } from './meta';
import type { BenchNames } from './names';
import { catchUpCompaction } from './phases/compaction';
import { produceAll } from './phases/produce';
import { usedMemory } from './redis-info';
import { deletePrefix } from './redis-keys';

async function produceAndIngest(ctx: RunContext, names: BenchNames): Promise<DataSetMeta> {
  const { redis, kafka, options, results } = ctx;
  const removed = await deletePrefix(redis, names.prefix);
  if (removed > 0) log(`removed ${removed} keys of an earlier ${names.prefix}`);
  await recreateTopics(kafka, names);
  const spec: DataSetSpec = {
    seed: options.seed,
    events: options.events,
    days: options.days,
    anchorMs: Date.now(),
    order: options.order,
  };
  const meta: DataSetMeta = { spec, baselineMemory: await usedMemory(redis) };
  await writeMeta(redis, names.prefix, meta);
  // Before its first event, so that the zone's edges hold the whole history (docs/api.md#billing-zones).
  if (options.billingZone) await declareBillingZone(redis, names.prefix, MEDIUM_API, options.billingZone);
  results.dataSet.spec = spec;

  results.produce = await phase(ctx, 'produce', () =>
    produceAll(kafka, names.topic, dataSetMessages(spec), totalEvents(spec)),
  );
  results.ingest = await phase(ctx, 'ingest', () => ingestTopic(ctx, names));
  // The topics stay until the rebuild phase replayed them (run.ts deletes them after it).
  return meta;
}

/** Produces, ingests and compacts the data set (or finds it loaded); returns its metadata. */
export async function loadDataSet(ctx: RunContext, names: BenchNames): Promise<DataSetMeta> {
  const { redis, options, results } = ctx;
  let meta: DataSetMeta;
  if (options.skipProduce) {
    const found = await readMeta(redis, names.prefix);
    if (!found?.loadedAt) {
      throw new Error(`no complete data set under ${names.prefix}: run once without --skip-produce`);
    }
    meta = found;
    results.dataSet.spec = meta.spec;
    results.dataSet.reused = true;
    log(`reusing ${names.prefix}, loaded ${new Date(found.loadedAt).toISOString()}`);
  } else {
    meta = await produceAndIngest(ctx, names);
  }

  const graceMs = loadConfig({}).compactionGraceMs;
  results.compaction = await phase(ctx, 'compaction', async () => {
    const compactor = await prepareService(ctx, 'compactor', names, { COMPACTION_EVERY_MS: '1000' });
    const { result, compactor: process } = await catchUpCompaction({
      redis,
      prefix: names.prefix,
      graceMs,
      metricsUrl: compactor.metricsUrl,
      start: compactor.start,
      timeoutMs: PHASE_TIMEOUT_MS,
    });
    // Stopped for the query measurements: its ticks would add Redis work to every scenario.
    await process.stop();
    return result;
  });
  if (!meta.loadedAt) {
    meta.loadedAt = Date.now();
    await writeMeta(redis, names.prefix, meta);
  }
  return meta;
}

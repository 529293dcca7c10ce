/**
 * `npm run bench -- --tail` (#41): the tail data set (tail/dataset.ts) produced to Kafka in time order,
 * ingested by one worker (events/s until visible), compacted and sealed by the compactor (seal rate and
 * time to fully sealed), its Redis memory per event with the keys per API-hour and a per-family
 * breakdown, then queries at one connection on a median API and a top-10 API. Every service runs as
 * `npm start` runs it (the compactor ticking every second, as in the medium-tenant run).
 */
import { loadConfig } from '@va/config';
import { apiKeys, globalKeys, readGeneration } from '@va/store';
import { codeVersion } from '../code-version';
import { phase, prepareService, type RunContext } from '../context';
import { ingestTopic, PHASE_TIMEOUT_MS } from '../ingest-topic';
import { deleteTopics, kafkaClient, recreateTopics } from '../kafka';
import { log } from '../log';
import { writeMeta } from '../meta';
import { namesFor, type BenchNames } from '../names';
import { catchUpCompaction } from '../phases/compaction';
import { measureMemory } from '../phases/memory';
import { produceAll } from '../phases/produce';
import { summarizeProfiles } from '../profiles';
import { usedMemory } from '../redis-info';
import { deletePrefix } from '../redis-keys';
import type { BenchResults } from '../results';
import type { RunInput } from '../run';
import { tailDataSetId, tailMessages, TAIL_DAYS, type TailSpec } from './dataset';
import { tailQueries } from './queries';
import type { TailResults } from './results';

/** API-hours holding data (the hour indexes' members), over every API of the prefix. */
async function apiHours(ctx: RunContext, names: BenchNames): Promise<{ apis: number; apiHours: number }> {
  const { redis } = ctx;
  const apis = await redis.smembers(globalKeys(names.prefix).apis);
  const space = { prefix: names.prefix, generation: await readGeneration(redis, names.prefix) };
  let total = 0;
  for (let from = 0; from < apis.length; from += 1000) {
    const pipeline = redis.pipeline();
    for (const apiId of apis.slice(from, from + 1000)) pipeline.zcard(apiKeys(space, apiId).bucketIndex('h'));
    for (const [err, n] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      total += Number(n);
    }
  }
  return { apis: apis.length, apiHours: total };
}

async function load(ctx: RunContext, names: BenchNames, spec: TailSpec, tail: TailResults): Promise<void> {
  const { redis, kafka } = ctx;
  const removed = await deletePrefix(redis, names.prefix);
  if (removed > 0) log(`removed ${removed} keys of an earlier ${names.prefix}`);
  await recreateTopics(kafka, names);
  tail.baselineMemory = await usedMemory(redis);
  await writeMeta(redis, names.prefix, {
    spec: { ...spec, days: TAIL_DAYS, order: 'time' },
    baselineMemory: tail.baselineMemory,
  });
  tail.produce = await phase(ctx, 'produce', () =>
    produceAll(kafka, names.topic, tailMessages(spec), spec.events),
  );
  tail.ingest = await phase(ctx, 'ingest', () => ingestTopic(ctx, names));
  const graceMs = loadConfig({}).compactionGraceMs;
  tail.compaction = await phase(ctx, 'compaction', async () => {
    const compactor = await prepareService(ctx, 'compactor', names, { COMPACTION_EVERY_MS: '1000' });
    const { result, compactor: process } = await catchUpCompaction({
      redis,
      prefix: names.prefix,
      graceMs,
      metricsUrl: compactor.metricsUrl,
      start: compactor.start,
      timeoutMs: PHASE_TIMEOUT_MS,
    });
    await process.stop();
    return result;
  });
}

export async function runTail(input: RunInput): Promise<{ bench: BenchResults; tail: TailResults }> {
  const { options } = input;
  const spec: TailSpec = { seed: options.seed, events: options.tailEvents, anchorMs: Date.now() };
  const names = namesFor(tailDataSetId(spec));
  const bench: BenchResults = {
    command: input.command,
    startedAt: new Date().toISOString(),
    finishedAt: '',
    machine: input.machine,
    code: codeVersion(),
    options,
    dataSet: {
      spec: { ...spec, days: TAIL_DAYS, order: 'time' },
      prefix: names.prefix,
      mediumEvents: 0,
      backgroundEvents: spec.events,
      totalEvents: spec.events,
      reused: false,
    },
    load: {},
    queries: [],
    profiles: [],
  };
  const tail: TailResults = {
    spec,
    prefix: names.prefix,
    baselineMemory: 0,
    apis: 0,
    apiHours: 0,
    queries: [],
  };
  const ctx: RunContext = {
    ...input,
    kafka: kafkaClient(input.servers.kafkaBrokers),
    results: bench,
    phaseName: 'setup',
  };
  try {
    await load(ctx, names, spec, tail);
    Object.assign(tail, await apiHours(ctx, names));
    tail.memory = await phase(ctx, 'memory', () =>
      measureMemory(ctx.redis, names.prefix, tail.baselineMemory),
    );
    tail.queries = await phase(ctx, 'queries', () => tailQueries(ctx, names, spec));
  } finally {
    await deleteTopics(ctx.kafka, names);
  }
  if (input.cpuProfDir) bench.profiles = summarizeProfiles(input.cpuProfDir);
  bench.finishedAt = new Date().toISOString();
  log('done');
  return { bench, tail };
}

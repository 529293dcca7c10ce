/**
 * `npm run bench -- --stream` (#44): live updates. On names of its own (an empty prefix, fresh topics,
 * removed afterwards): one ingest worker and ONE query service as `npm start` runs them (query-env.ts),
 * the bare round-trip calibration, then measure.ts: N streams over A APIs while live traffic flows.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from '@va/client';
import { createRootKey, globalKeys, hashRootKey, registerApi } from '@va/store';
import { readEnvironment } from '@va/config';
import { bareRoundTrip } from '../calibration';
import { phase, prepareService, startRun } from '../context';
import { deleteTopics, recreateTopics } from '../kafka';
import { log } from '../log';
import { namesFor } from '../names';
import { querySettings, querySettingsEnv } from '../query-env';
import { deletePrefix } from '../redis-keys';
import type { BenchResults } from '../results';
import type { RunInput } from '../run';
import { measureStreams, type StreamMeasure } from './measure';
import { LIVE_WORKSPACE, liveApiId, planStreams, rootKeysFor } from './plan';

export interface StreamResults extends StreamMeasure {
  apis: number;
  rootKeys: number;
  readTokens: number;
  load: { before: [number, number, number]; after: [number, number, number] };
}

export async function runStream(input: RunInput): Promise<{ bench: BenchResults; stream: StreamResults }> {
  const { options, redis } = input;
  const names = namesFor(`vabench-stream-s${options.seed}`);
  const ctx = startRun(input, {
    spec: { seed: options.seed, events: 0, days: 0, order: 'time', anchorMs: Date.now() },
    prefix: names.prefix,
    mediumEvents: 0,
    backgroundEvents: 0,
    totalEvents: 0,
    reused: false,
  });
  const bench = ctx.results;
  const settings = querySettings(options.limits, process.env);
  bench.querySettings = settings;
  const perKey = readEnvironment(process.env).QUERY_STREAM_MAX_PER_KEY;
  const keyCount = rootKeysFor(options.streams, perKey || options.streams * 2);
  const plan = planStreams(options.streams, options.streamApis, keyCount);

  await deletePrefix(redis, names.prefix);
  await recreateTopics(ctx.kafka, names);
  const rootKeys: string[] = [];
  try {
    for (let a = 0; a < options.streamApis; a++)
      await registerApi(redis, names.prefix, liveApiId(a), LIVE_WORKSPACE);
    for (let k = 0; k < keyCount; k++) {
      const created = await createRootKey(redis, names.prefix, {
        workspaceId: LIVE_WORKSPACE,
        permissions: ['api.*.read_api', 'api.*.create_read_token'],
        now: Date.now(),
      });
      rootKeys.push(created.key);
    }
    const ingest = await prepareService(ctx, 'ingest', names);
    // Read tokens are off unless the operator gives a signing key: the run's own, for its tokens.
    const query = await prepareService(ctx, 'query', names, {
      ...querySettingsEnv(settings),
      READ_TOKEN_KEYS: `bench:${randomBytes(32).toString('base64url')}`,
    });
    const services = [ingest.start(), query.start()];
    try {
      await services[0]!.waitHealthy(`${ingest.baseUrl}/health`, 120_000);
      await services[1]!.waitHealthy(`${query.baseUrl}/health`);
      bench.calibration = await phase(ctx, 'calibration', () => bareRoundTrip(3, rootKeys));
      // Each identity stream reads through a read token of its own, minted by its root key.
      const tokens: string[] = [];
      for (const s of plan) {
        const rootKey = rootKeys[s.rootKey]!;
        if (s.kind !== 'identity') tokens.push(rootKey);
        else {
          const client = createClient({ baseUrl: query.baseUrl, token: rootKey });
          const minted = await client.createReadToken({
            apiId: s.apiId,
            externalId: s.externalId!,
            expiresIn: 3_600,
          });
          tokens.push(minted.token);
        }
      }
      const before = ctx.load();
      const measured = await phase(ctx, 'stream', () =>
        measureStreams({
          kafka: ctx.kafka,
          topic: names.topic,
          baseUrl: query.baseUrl,
          metricsUrl: query.metricsUrl,
          queryPid: services[1]!.pid,
          tokens,
          plan,
          start: Date.now() - 3_600_000,
          apis: options.streamApis,
          rate: options.freshnessRate,
          seconds: options.streamSeconds,
          warmupSeconds: 5,
          seed: options.seed + 17,
        }),
      );
      const stream: StreamResults = {
        ...measured,
        apis: options.streamApis,
        rootKeys: keyCount,
        readTokens: plan.filter((s) => s.kind === 'identity').length,
        load: { before, after: ctx.load() },
      };
      log(`stream: produce-to-push p50 ${stream.latencyMs.p50} ms, p99 ${stream.latencyMs.p99} ms`);
      bench.finishedAt = new Date().toISOString();
      return { bench, stream };
    } finally {
      await Promise.all(services.map((s) => s.stop()));
    }
  } finally {
    await deleteTopics(ctx.kafka, names);
    const { rootKey } = globalKeys(names.prefix);
    if (rootKeys.length > 0) await redis.unlink(...rootKeys.map((k) => rootKey(hashRootKey(k))));
    await deletePrefix(redis, names.prefix);
  }
}

/**
 * The query phase: root keys, a query service process started as `npm start` starts it (query-env.ts),
 * the busiest identity, the calibration round trip, then every selected scenario under load
 * (phases/queries.ts) and the light-under-heavy check (phases/light-under-heavy.ts).
 */
import type { Redis } from 'ioredis';
import { readEnvironment } from '@va/config';
import { createRootKey, globalKeys, hashRootKey } from '@va/store';
import { TAG_VOCABULARY } from '@va/testkit';
import { bareRoundTrip } from './calibration';
import { cannon } from './cannon';
import { prepareService, type RunContext } from './context';
import { MEDIUM_API, MEDIUM_WORKSPACE } from './dataset';
import { getRowsOk } from './http';
import { log } from './log';
import type { BenchNames } from './names';
import { lightUnderHeavy } from './phases/light-under-heavy';
import { runScenario } from './phases/queries';
import { querySettings, querySettingsEnv, rootKeyPoolSize } from './query-env';
import {
  HEAVY_PARAMS,
  LIGHT_SCENARIO,
  scenarioPath,
  selectScenarios,
  selectsLightUnderHeavy,
  type ScenarioContext,
} from './scenarios';

/** The permission to read every API of the workspace (docs/api.md#auth). */
const READ_ANY_API = 'api.*.read_api';

export async function rootKeyFor(redis: Redis, prefix: string): Promise<string> {
  return (await rootKeysFor(redis, prefix, 1))[0]!;
}

async function rootKeysFor(redis: Redis, prefix: string, count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let n = 0; n < count; n++) {
    const created = await createRootKey(redis, prefix, {
      workspaceId: MEDIUM_WORKSPACE,
      permissions: [READ_ANY_API],
      now: Date.now(),
    });
    keys.push(created.key);
  }
  return keys;
}

/**
 * The per-identity scenarios ask about the busiest identity of the last 30 days, the key-filter
 * ones about the busiest key.
 */
async function scenarioContext(
  baseUrl: string,
  rootKey: string,
  tags: [string, string],
): Promise<ScenarioContext> {
  const now = Date.now();
  const search = new URLSearchParams([
    ['apiId', MEDIUM_API],
    ['start', String(now - 30 * 86_400_000)],
    ['groupBy', 'identity'],
    ['orderBy', 'total'],
    ['order', 'desc'],
    ['limit', '1'],
  ]);
  const top = await getRowsOk(baseUrl, `/v1/analytics.getVerifications?${search}`, rootKey);
  const externalId = top.rows[0]?.identity?.externalId;
  if (externalId === undefined) throw new Error('the medium tenant has no identity in the last 30 days');
  search.set('groupBy', 'key');
  const topKey = await getRowsOk(baseUrl, `/v1/analytics.getVerifications?${search}`, rootKey);
  const keyId = topKey.rows[0]?.keyId;
  if (keyId === undefined) throw new Error('the medium tenant has no key in the last 30 days');
  return { now, apiId: MEDIUM_API, externalId, tags, keyId };
}

const HEAVY_CONNECTIONS = 10;

export async function queries(ctx: RunContext, names: BenchNames): Promise<void> {
  const { redis, options, results } = ctx;
  const scenarios = selectScenarios(options.scenarios);
  const settings = querySettings(options.limits, process.env);
  results.querySettings = settings;
  // The limits on (the default), the load rotates over a pool of root keys so that it pays their
  // checks without being refused by them (query-env.ts rootKeyPoolSize); the heavy ones are others.
  const rootKeys = await rootKeysFor(
    redis,
    names.prefix,
    rootKeyPoolSize(settings, Math.max(...options.connections)),
  );
  const heavyKeys = await rootKeysFor(redis, names.prefix, HEAVY_CONNECTIONS);
  const prepared = await prepareService(ctx, 'query', names, querySettingsEnv(settings));
  const service = prepared.start();
  try {
    await service.waitHealthy(`${prepared.baseUrl}/health`);
    const tags: [string, string] = [TAG_VOCABULARY[0]!, TAG_VOCABULARY[2]!];
    const base = await scenarioContext(prepared.baseUrl, rootKeys[0]!, tags);
    results.queryContext = {
      externalId: base.externalId,
      tags,
      keyId: base.keyId,
      rootKeys: rootKeys.length,
    };
    results.calibration = await bareRoundTrip(options.seconds, rootKeys);
    results.healthRoundTrip = await cannon({
      url: `${prepared.baseUrl}/health`,
      connections: 1,
      seconds: options.seconds,
      bearer: rootKeys,
    });
    log(
      `calibration: bare node:http round trip p50 ${results.calibration.latencyMs.p50.toFixed(3)} ms, ` +
        `the service's /health p50 ${results.healthRoundTrip.latencyMs.p50.toFixed(3)} ms`,
    );
    const target = {
      redis,
      baseUrl: prepared.baseUrl,
      metricsUrl: prepared.metricsUrl,
      rootKeys,
      seconds: options.seconds,
      connections: options.connections,
      warmupRequests: 20,
    };
    for (const scenario of scenarios) {
      results.queries.push(await runScenario(target, scenario, { ...base, now: Date.now() }));
    }
    if (selectsLightUnderHeavy(options.scenarios)) {
      const heavyPath = `/v1/analytics.getVerifications?${new URLSearchParams([['apiId', MEDIUM_API], ...HEAVY_PARAMS])}`;
      results.lightUnderHeavy = [];
      for (const heavyRootKeys of [1, HEAVY_CONNECTIONS]) {
        results.lightUnderHeavy.push(
          await lightUnderHeavy({
            baseUrl: prepared.baseUrl,
            lightPath: scenarioPath(LIGHT_SCENARIO, { ...base, now: Date.now() }),
            heavyPath,
            lightKeys: rootKeys,
            heavyKeys: heavyKeys.slice(0, heavyRootKeys),
            heavyConnections: HEAVY_CONNECTIONS,
            seconds: options.seconds,
            settleMs: readEnvironment(process.env).QUERY_TIMEOUT_MS + 1_000,
          }),
        );
      }
    }
  } finally {
    await service.stop();
    // The run's root keys go with it: the data set's prefix keeps only the data set.
    const { rootKey } = globalKeys(names.prefix);
    await redis.unlink(...[...rootKeys, ...heavyKeys].map((key) => rootKey(hashRootKey(key))));
  }
}

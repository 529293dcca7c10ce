/**
 * The tail run's queries (#41): for a median API and a top-10 API, the API by day over 30 days, one
 * identity (the API's busiest) by hour over 24 h, and its top keys over 30 days, at one connection, on a
 * query service started as `npm start` starts it (shipped limits, rotating root keys of the API's
 * workspace: query-env.ts).
 */
import { createRootKey, globalKeys, hashRootKey } from '@va/store';
import { prepareService, type RunContext } from '../context';
import { getRowsOk } from '../http';
import { log } from '../log';
import type { BenchNames } from '../names';
import { runScenario } from '../phases/queries';
import { querySettings, querySettingsEnv, rootKeyPoolSize } from '../query-env';
import { SCENARIOS, type Scenario } from '../scenarios';
import { queriedApis, type TailSpec } from './dataset';
import type { TailQueryResult } from './results';

const DAYS_30 = 30 * 86_400_000;

const TOP_KEYS_30D: Scenario = {
  name: 'top-keys-30d',
  title: 'top 10 keys, 30 days',
  params: (c) => [
    ['start', String(c.now - DAYS_30)],
    ['groupBy', 'key'],
    ['orderBy', 'total'],
    ['order', 'desc'],
    ['limit', '10'],
  ],
};

export const TAIL_SCENARIOS: readonly Scenario[] = [
  SCENARIOS.find((s) => s.name === 'api-30d-by-day')!,
  SCENARIOS.find((s) => s.name === 'identity-24h-by-hour')!,
  TOP_KEYS_30D,
];

export async function tailQueries(
  ctx: RunContext,
  names: BenchNames,
  spec: TailSpec,
): Promise<TailQueryResult[]> {
  const { redis, options } = ctx;
  const settings = querySettings(options.limits, process.env);
  const prepared = await prepareService(ctx, 'query', names, querySettingsEnv(settings));
  const service = prepared.start();
  const created: string[] = [];
  const out: TailQueryResult[] = [];
  try {
    await service.waitHealthy(`${prepared.baseUrl}/health`);
    for (const api of queriedApis(spec.events)) {
      const workspaceId = await redis.get(globalKeys(names.prefix).api(api.apiId));
      if (workspaceId === null) {
        // A small --tail-events may leave the median API without any event.
        log(`tail queries: ${api.label} API ${api.apiId} received no event; skipped`);
        continue;
      }
      const rootKeys: string[] = [];
      for (let n = 0; n < rootKeyPoolSize(settings, 1); n++) {
        const key = await createRootKey(redis, names.prefix, {
          workspaceId,
          permissions: ['api.*.read_api'],
          now: Date.now(),
        });
        rootKeys.push(key.key);
        created.push(key.key);
      }
      const now = Date.now();
      const search = (groupBy: string) =>
        `/v1/analytics.getVerifications?${new URLSearchParams([
          ['apiId', api.apiId],
          ['start', String(now - DAYS_30)],
          ['groupBy', groupBy],
          ['orderBy', 'total'],
          ['order', 'desc'],
          ['limit', '1'],
        ])}`;
      const identity = (await getRowsOk(prepared.baseUrl, search('identity'), rootKeys[0]!)).rows[0]
        ?.identity;
      const total = await getRowsOk(
        prepared.baseUrl,
        `/v1/analytics.getVerifications?${new URLSearchParams([
          ['apiId', api.apiId],
          ['start', String(now - DAYS_30 - 86_400_000)],
        ])}`,
        rootKeys[0]!,
      );
      const apiEvents = total.rows.reduce((sum, row) => sum + row.total, 0);
      log(
        `tail queries: ${api.label} API ${api.apiId} (${apiEvents} events), identity ${identity?.externalId}`,
      );
      const target = {
        redis,
        baseUrl: prepared.baseUrl,
        metricsUrl: prepared.metricsUrl,
        rootKeys,
        seconds: options.seconds,
        connections: [1],
        warmupRequests: 20,
      };
      for (const scenario of TAIL_SCENARIOS) {
        if (scenario.name.startsWith('identity') && identity === undefined) continue;
        const result = await runScenario(target, scenario, {
          now: Date.now(),
          apiId: api.apiId,
          externalId: identity?.externalId ?? '',
          tags: ['', ''],
          keyId: '',
        });
        out.push({ ...result, api, apiEvents });
      }
    }
  } finally {
    await service.stop();
    if (created.length > 0)
      await redis.unlink(...created.map((key) => globalKeys(names.prefix).rootKey(hashRootKey(key))));
  }
  return out;
}

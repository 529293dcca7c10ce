/**
 * The query phase: a root key, a query service process, the busiest identity, then every selected
 * scenario under load (phases/queries.ts).
 */
import type { Redis } from 'ioredis';
import { createRootKey } from '@va/store';
import { TAG_VOCABULARY } from '@va/testkit';
import { prepareService, type RunContext } from './context';
import { MEDIUM_API, MEDIUM_WORKSPACE } from './dataset';
import { getRowsOk } from './http';
import type { BenchNames } from './names';
import { runScenario } from './phases/queries';
import { selectScenarios, type ScenarioContext } from './scenarios';

/** The permission to read every API of the workspace (docs/api.md#auth). */
const READ_ANY_API = 'api.*.read_api';

export async function rootKeyFor(redis: Redis, prefix: string): Promise<string> {
  const created = await createRootKey(redis, prefix, {
    workspaceId: MEDIUM_WORKSPACE,
    permissions: [READ_ANY_API],
    now: Date.now(),
  });
  return created.key;
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

export async function queries(ctx: RunContext, names: BenchNames): Promise<void> {
  const { redis, options, results } = ctx;
  const scenarios = selectScenarios(options.scenarios);
  const rootKey = await rootKeyFor(redis, names.prefix);
  // The load runs measure latency with one root key at up to 10 connections: the per-key rate
  // and concurrency limits (which would answer 429) are off, as for a trusted dashboard backend.
  const prepared = await prepareService(ctx, 'query', names, {
    QUERY_RATE_LIMIT: process.env.QUERY_RATE_LIMIT ?? '0',
    QUERY_MAX_CONCURRENT: process.env.QUERY_MAX_CONCURRENT ?? '0',
  });
  const service = prepared.start();
  try {
    await service.waitHealthy(`${prepared.baseUrl}/health`);
    const tags: [string, string] = [TAG_VOCABULARY[0]!, TAG_VOCABULARY[2]!];
    const base = await scenarioContext(prepared.baseUrl, rootKey, tags);
    results.queryContext = { externalId: base.externalId, tags, keyId: base.keyId };
    const target = {
      redis,
      baseUrl: prepared.baseUrl,
      metricsUrl: prepared.metricsUrl,
      rootKey,
      seconds: options.seconds,
      connections: options.connections,
      warmupRequests: 20,
    };
    for (const scenario of scenarios) {
      results.queries.push(await runScenario(target, scenario, { ...base, now: Date.now() }));
    }
  } finally {
    await service.stop();
  }
}

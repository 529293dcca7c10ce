/**
 * Registration of APIs seen by the ingest worker (docs/api.md#auth: an API belongs to the workspace
 * of its first event). The first workspace wins and never changes; an event
 * naming another workspace is refused by the worker (DLQ reason workspace_mismatch).
 * Operator registration and lookups live in registry.ts; both write the same keys.
 */
import type { RedisClient } from './connection';
import { globalKeys } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import { indexWorkspaceApis } from './workspace-apis';

export interface ApiClaim {
  apiId: string;
  workspaceId: string;
}

/**
 * Registers each API to the claimed workspace unless it already has one, and returns the
 * owning workspace of each (in order). One pipeline: `SET <p>:api:<id> ws NX GET` (Redis >= 7)
 * reads the previous owner in the same atomic step, `SADD <p>:apis id` lists it for the compactor;
 * then a second one lists each API in its owner's set (workspace-apis.ts), which only the first
 * reply names. A crash between the two is healed by the next registration of the API (a worker
 * registers every API it has not cached, so after each start).
 */
export async function registerApisFromEvents(
  redis: RedisClient,
  prefix: string,
  claims: readonly ApiClaim[],
): Promise<string[]> {
  if (claims.length === 0) return [];
  const keys = globalKeys(prefix);
  const pipeline = newPipeline(redis);
  for (const { apiId, workspaceId } of claims) {
    pipeline.call('SET', keys.api(apiId), workspaceId, 'NX', 'GET');
    pipeline.sadd(keys.apis, apiId);
  }
  const replies = await execPipeline(pipeline);
  const owners = claims.map(({ workspaceId }, n) => {
    const previous = replies[2 * n];
    return typeof previous === 'string' ? previous : workspaceId;
  });
  await indexWorkspaceApis(
    redis,
    prefix,
    claims.map(({ apiId }, n) => ({ apiId, workspaceId: owners[n]! })),
  );
  return owners;
}

export async function registerApiFromEvent(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  workspaceId: string,
): Promise<string> {
  const [owner] = await registerApisFromEvents(redis, prefix, [{ apiId, workspaceId }]);
  return owner!;
}

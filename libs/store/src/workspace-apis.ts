/**
 * Which APIs a workspace owns, for GET /v1/apis.list: the set `<p>:wsapis:<workspaceId>` (keys.ts),
 * added to wherever an API is registered (registry.ts, api-registration.ts), after its owner is known.
 *
 * A store from before these sets has owners (`<p>:api:<id>`) but no sets. Rather than a migration
 * step an operator must remember, the first listing finds the marker `<p>:wsapis-indexed` absent,
 * walks `<p>:apis` once and fills every workspace's set from the owners, then sets the marker.
 * Registrations meanwhile write their own entry, so none is lost; two services indexing at once
 * write the same members (SADD is idempotent).
 */
import type { RedisClient } from './connection';
import { listApis } from './generation-scan';
import { globalKeys } from './keys';
import { execPipeline, newPipeline } from './pipeline';

/** Owners looked up per round trip while indexing an existing store. */
const INDEX_BATCH = 1000;

/** Adds each API to its owner's set (owners as registration answered them, in order). */
export async function indexWorkspaceApis(
  redis: RedisClient,
  prefix: string,
  owned: readonly { apiId: string; workspaceId: string }[],
): Promise<void> {
  if (owned.length === 0) return;
  const keys = globalKeys(prefix);
  const pipeline = newPipeline(redis);
  for (const { apiId, workspaceId } of owned) pipeline.sadd(keys.workspaceApis(workspaceId), apiId);
  await execPipeline(pipeline);
}

/** Fills the workspace sets from `<p>:apis` and the owners, then marks the store indexed. */
export async function indexExistingApis(redis: RedisClient, prefix: string): Promise<void> {
  const keys = globalKeys(prefix);
  const apiIds = await listApis(redis, keys.apis);
  for (let i = 0; i < apiIds.length; i += INDEX_BATCH) {
    const batch = apiIds.slice(i, i + INDEX_BATCH);
    const lookup = newPipeline(redis);
    for (const apiId of batch) lookup.get(keys.api(apiId));
    const owners = (await execPipeline(lookup)) as (string | null)[];
    await indexWorkspaceApis(
      redis,
      prefix,
      batch.flatMap((apiId, n) => (owners[n] ? [{ apiId, workspaceId: owners[n] }] : [])),
    );
  }
  await redis.set(keys.workspaceApisIndexed, String(apiIds.length));
}

/** The apiIds the workspace owns, sorted. */
export async function workspaceApis(
  redis: RedisClient,
  prefix: string,
  workspaceId: string,
): Promise<string[]> {
  const keys = globalKeys(prefix);
  const [indexed, members] = (await execPipeline(
    newPipeline(redis).exists(keys.workspaceApisIndexed).smembers(keys.workspaceApis(workspaceId)),
  )) as [number, string[]];
  if (indexed === 1) return members.sort();
  await indexExistingApis(redis, prefix);
  return (await redis.smembers(keys.workspaceApis(workspaceId))).sort();
}

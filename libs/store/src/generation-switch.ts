/**
 * The switch from generation g to g' at the end of a rebuild (docs/rebuild.md "The switch"): only once g'
 * holds every offset g holds, so that counts never go down at the switch. The keys involved lie in many
 * hash slots (<p>:gen, <p>:rebuild, both wm hashes, every API's off), so on a Redis Cluster no one script
 * can see them all. Instead, in steps that a crash may interrupt anywhere (a rerun continues):
 *
 *   1. check (plain reads): g' has caught up: wm(g') >= wm(g) and >= every API's off in g; else 'behind'
 *   2. status compacting -> switching (CAS; `rebuild abort` is refused from here on)
 *   3. per API, one script in its slot (retireApiGeneration-1.lua): wm(g') >= off(g) of that API, then
 *      retire it in g, so that live writers stop counting it into g; repeated over `<p>:apis` until a pass
 *      finds no API left (an API first seen meanwhile is retired by the next pass)
 *   4. <p>:gen = g'; status switching -> switched
 *
 * While retired APIs wait for step 4 (milliseconds, or until the rebuild's consumer catches up with an API
 * that moved between 1 and 3), live writers of those APIs retry; queries read g, which no longer moves for
 * them, and then g', which holds at least as much.
 */
import type { RedisClient } from './connection';
import { listApis } from './generation-scan';
import { readRebuildState } from './generation-state';
import { apiKeys, globalKeys, watermarkKey, type KeySpace } from './keys';
import { execPipeline, newPipeline } from './pipeline';
import {
  decodeRetireApiGeneration,
  queueRetireApiGeneration,
  transitionRebuild,
  type BehindPartition,
} from './scripts/generation-scripts';
import { readGeneration } from './watermark';

export type SwitchResult =
  | { status: 'switched' }
  | { status: 'behind'; count: number; partitions: BehindPartition[] }
  | { status: 'not-current'; current: number }
  | { status: 'not-ready'; rebuildStatus: string };

/** Field of an API's off hash that marks it retired (never a partition: those are "<topic>/<n>"). */
export const RETIRED_FIELD = '@retired';

/** APIs per pipeline of reads or retire scripts. */
const SLICE = 500;

async function hashOf(redis: RedisClient, key: string): Promise<Map<string, number>> {
  const flat = await redis.hgetall(key);
  return new Map(
    Object.entries(flat)
      .filter(([field]) => !field.startsWith('@'))
      .map(([field, value]) => [field, Number(value)]),
  );
}

/** Partitions where `has` lacks what `needed` holds (max over every source of `needed`). */
function behindOf(has: Map<string, number>, needed: Map<string, number>): BehindPartition[] {
  const out: BehindPartition[] = [];
  for (const [field, n] of needed) {
    const h = has.get(field);
    if (h === undefined || h < n) out.push({ field, needed: n, has: h ?? null });
  }
  return out;
}

const behind = (partitions: BehindPartition[]): SwitchResult => ({
  status: 'behind',
  count: partitions.length,
  partitions: partitions.slice(0, 8),
});

/** Step 1: wm(g) and every API's off in g, maxed per partition (plain reads, one pipeline per slice). */
async function neededOffsets(
  redis: RedisClient,
  source: KeySpace,
  apiIds: readonly string[],
): Promise<Map<string, number>> {
  const needed = await hashOf(redis, watermarkKey(source));
  for (let n = 0; n < apiIds.length; n += SLICE) {
    const pipeline = newPipeline(redis);
    for (const apiId of apiIds.slice(n, n + SLICE)) pipeline.hgetall(apiKeys(source, apiId).offsets);
    for (const offs of (await execPipeline(pipeline)) as Record<string, string>[]) {
      for (const [field, raw] of Object.entries(offs)) {
        if (field.startsWith('@')) continue;
        const value = Number(raw);
        if (value > (needed.get(field) ?? -1)) needed.set(field, value);
      }
    }
  }
  return needed;
}

/** Step 3 for some APIs: their BehindPartitions (empty = all retired). */
async function retire(
  redis: RedisClient,
  source: KeySpace,
  target: number,
  wmTarget: Map<string, number>,
  apiIds: readonly string[],
): Promise<BehindPartition[]> {
  const lagging: BehindPartition[] = [];
  for (let n = 0; n < apiIds.length; n += SLICE) {
    const pipeline = newPipeline(redis);
    for (const apiId of apiIds.slice(n, n + SLICE)) {
      queueRetireApiGeneration(redis, pipeline, source, apiId, target, wmTarget);
    }
    for (const reply of await execPipeline(pipeline)) lagging.push(...decodeRetireApiGeneration(reply));
  }
  return lagging;
}

export async function switchGeneration(
  redis: RedisClient,
  prefix: string,
  source: number,
  target: number,
  now: number,
): Promise<SwitchResult> {
  const g = globalKeys(prefix);
  const from: KeySpace = { prefix, generation: source };
  const state = await readRebuildState(redis, prefix);
  const current = await readGeneration(redis, prefix);
  const status = state?.status ?? 'none';
  if (current === target && status === 'switching' && state?.target === target) {
    // A switch that set <p>:gen and died before it recorded so.
    await transitionRebuild(redis, prefix, ['switching'], 'switched', { switchedAt: now });
    return { status: 'switched' };
  }
  if (current !== source) return { status: 'not-current', current };
  if (!state || state.target !== target || (status !== 'compacting' && status !== 'switching')) {
    return { status: 'not-ready', rebuildStatus: status };
  }

  // 1. Caught up? (Nothing retired yet on the first try: live writers are not held up while g' catches up.)
  const wmTarget = await hashOf(redis, watermarkKey({ prefix, generation: target }));
  let apiIds = await listApis(redis, g.apis);
  const lagging = behindOf(wmTarget, await neededOffsets(redis, from, apiIds));
  if (lagging.length > 0) return behind(lagging);

  // 2. From here on an abort is refused, and a crashed switch is resumed.
  if (status === 'compacting') {
    const moved = await transitionRebuild(redis, prefix, ['compacting'], 'switching');
    if (!moved.ok) return { status: 'not-ready', rebuildStatus: moved.status ?? 'none' };
  }

  // 3. Retire every API, until a listing finds none left (APIs first seen meanwhile).
  const retired = new Set<string>();
  for (;;) {
    const fresh = apiIds.filter((apiId) => !retired.has(apiId));
    if (fresh.length === 0) break;
    const stillBehind = await retire(redis, from, target, wmTarget, fresh);
    if (stillBehind.length > 0) return behind(stillBehind);
    for (const apiId of fresh) retired.add(apiId);
    apiIds = await listApis(redis, g.apis);
  }

  // 4. The switch itself; readers and writers pick up <p>:gen with their next request or batch.
  await redis.set(g.generation, String(target));
  await transitionRebuild(redis, prefix, ['switching'], 'switched', { switchedAt: now });
  return { status: 'switched' };
}

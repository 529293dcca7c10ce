/**
 * commands/admitQuery.lua, the query service's limits in one call (docs/query-isolation.md "Order of
 * the checks"): sent in one pipeline with reads of other slots (`<p>:gen`, an API's meta), as the
 * service sends it; also run on a Redis Cluster (the `cluster` project), where that pipeline spans nodes.
 */
import { describe, expect, it } from 'vitest';
import { globalKeys } from './keys';
import { fileRedis } from './testing/file-redis';
import { execPipeline, newPipeline, queueCommand } from './pipeline';
import { queueApiMeta } from './read';

const db = fileRedis('admit');
const { prefix } = db;
const keys = globalKeys(prefix);

interface Limits {
  rate: number;
  slots: number;
  subjectRate?: number;
  subjectSlots?: number;
}

/** One admission, in a pipeline with GET <p>:gen and an API's meta; its reply and theirs. */
async function admit(root: string, subject: string | null, id: string, limits: Limits, windowMs = 60_000) {
  const keyList = [keys.rateWindow(root), keys.querySlots(root)];
  const max = [limits.rate, limits.slots];
  if (subject !== null) {
    keyList.push(keys.rateWindow(root, subject), keys.querySubjectSlots(root, subject));
    max.push(limits.subjectRate ?? 0, limits.subjectSlots ?? 0);
  }
  const pipeline = newPipeline(db.redis);
  queueCommand(db.redis, pipeline, 'admitQuery', [keyList.length, ...keyList, windowMs, id, 10_000, ...max]);
  pipeline.get(keys.generation);
  const meta = queueApiMeta(pipeline, { prefix, generation: 1 }, 'api_admit', { firstHour: true });
  const replies = await execPipeline(pipeline);
  expect(meta(replies)).toEqual({ compactedThrough: null, firstHour: null });
  return replies[0] as number[];
}

describe('admitQuery', () => {
  it('counts the rate window and refuses past it, with the ms left of the window', async () => {
    const limits = { rate: 2, slots: 0 };
    expect(await admit('r1', null, 'a', limits)).toEqual([0]);
    expect(await admit('r1', null, 'b', limits)).toEqual([0]);
    const [kind, owner, ms] = await admit('r1', null, 'c', limits);
    expect([kind, owner]).toEqual([1, 1]);
    expect(ms).toBeGreaterThan(50_000);
    expect(ms).toBeLessThanOrEqual(60_000);
  });

  it('takes a slot per request up to the limit; a request refused by its rate window takes none', async () => {
    expect(await admit('r2', null, 'a', { rate: 0, slots: 1 })).toEqual([0]);
    expect(await admit('r2', null, 'b', { rate: 0, slots: 1 })).toEqual([2, 1]);
    expect(await db.redis.zrange(keys.querySlots('r2'), 0, -1)).toEqual(['a']);
    expect(await admit('r3', null, 'a', { rate: 1, slots: 5 })).toEqual([0]);
    expect((await admit('r3', null, 'b', { rate: 1, slots: 5 }))[0]).toBe(1);
    expect(await db.redis.zrange(keys.querySlots('r3'), 0, -1)).toEqual(['a']);
  });

  it("counts a read token's subject first: a request its subject may not send leaves the root key's window alone", async () => {
    const limits = { rate: 3, slots: 0, subjectRate: 1, subjectSlots: 0 };
    expect(await admit('r4', 's1', 'a', limits)).toEqual([0]);
    expect((await admit('r4', 's1', 'b', limits)).slice(0, 2)).toEqual([1, 2]);
    expect((await admit('r4', 's1', 'c', limits)).slice(0, 2)).toEqual([1, 2]);
    expect(await db.redis.get(keys.rateWindow('r4'))).toBe('1');
    expect(await admit('r4', null, 'd', limits)).toEqual([0]);
    expect(await admit('r4', 's2', 'e', limits)).toEqual([0]);
    expect((await admit('r4', null, 'f', limits)).slice(0, 2)).toEqual([1, 1]);
  });

  it('takes a slot in the root key and the subject at once, or in neither', async () => {
    const limits = { rate: 0, slots: 2, subjectRate: 0, subjectSlots: 1 };
    expect(await admit('r5', 's1', 'a', limits)).toEqual([0]);
    expect(await admit('r5', 's1', 'b', limits)).toEqual([2, 2]);
    expect(await db.redis.zrange(keys.querySlots('r5'), 0, -1)).toEqual(['a']);
    expect(await admit('r5', 's2', 'c', limits)).toEqual([0]);
    expect(await admit('r5', 's3', 'd', limits)).toEqual([2, 1]);
    expect(await db.redis.zrange(keys.querySubjectSlots('r5', 's3'), 0, -1)).toEqual([]);
  });
});

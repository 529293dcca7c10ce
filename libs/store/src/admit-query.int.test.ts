/**
 * commands/admitQuery.lua through its typed function (scripts/admission-scripts.ts), the query service's limits in one call (docs/query-isolation.md "Order of
 * the checks"): sent in one pipeline with reads of other slots (`<p>:gen`, an API's meta), as the
 * service sends it; also run on a Redis Cluster (the `cluster` project), where that pipeline spans nodes.
 */
import { describe, expect, it } from 'vitest';
import { globalKeys } from './keys';
import { fileRedis } from './testing/file-redis';
import { execPipeline, newPipeline } from './pipeline';
import { queueAdmitQuery } from './scripts/admission-scripts';
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

/** One admission, in a pipeline with GET <p>:gen and an API's meta: its decoded reply, checked beside theirs. */
async function admitReply(
  root: string,
  subject: string | null,
  id: string,
  limits: Limits,
  windowMs = 60_000,
) {
  const pipeline = newPipeline(db.redis);
  const decode = queueAdmitQuery(db.redis, pipeline, {
    prefix,
    rootKeyHash: root,
    root: { rate: limits.rate, slots: limits.slots },
    subject:
      subject === null
        ? null
        : { name: subject, limits: { rate: limits.subjectRate ?? 0, slots: limits.subjectSlots ?? 0 } },
    windowMs,
    requestId: id,
    slotTtlMs: 10_000,
  });
  pipeline.get(keys.generation);
  const meta = queueApiMeta(pipeline, { prefix, generation: 1 }, 'api_admit', { firstHour: true });
  const replies = await execPipeline(pipeline);
  expect(meta(replies)).toEqual({ compactedThrough: null, firstHour: null });
  return decode(replies);
}

/** The reply in short: 'ok', or which limit refused it and whose ('rate:rootKey', 'slots:subject'). */
async function admit(...args: Parameters<typeof admitReply>): Promise<string> {
  const reply = await admitReply(...args);
  return reply.admitted ? 'ok' : `${reply.limit}:${reply.scope}`;
}

describe('admitQuery', () => {
  it('counts the rate window and refuses past it, with the ms left of the window', async () => {
    const limits = { rate: 2, slots: 0 };
    expect(await admit('r1', null, 'a', limits)).toBe('ok');
    expect(await admit('r1', null, 'b', limits)).toBe('ok');
    const refused = await admitReply('r1', null, 'c', limits);
    expect(refused).toMatchObject({ admitted: false, limit: 'rate', scope: 'rootKey' });
    const retryInMs = refused.admitted || refused.limit !== 'rate' ? NaN : refused.retryInMs;
    expect(retryInMs).toBeGreaterThan(50_000);
    expect(retryInMs).toBeLessThanOrEqual(60_000);
  });

  it('takes a slot per request up to the limit; a request refused by its rate window takes none', async () => {
    expect(await admit('r2', null, 'a', { rate: 0, slots: 1 })).toBe('ok');
    expect(await admit('r2', null, 'b', { rate: 0, slots: 1 })).toBe('slots:rootKey');
    expect(await db.redis.zrange(keys.querySlots('r2'), 0, -1)).toEqual(['a']);
    expect(await admit('r3', null, 'a', { rate: 1, slots: 5 })).toBe('ok');
    expect(await admit('r3', null, 'b', { rate: 1, slots: 5 })).toBe('rate:rootKey');
    expect(await db.redis.zrange(keys.querySlots('r3'), 0, -1)).toEqual(['a']);
  });

  it("counts a read token's subject first: a request its subject may not send leaves the root key's window alone", async () => {
    const limits = { rate: 3, slots: 0, subjectRate: 1, subjectSlots: 0 };
    expect(await admit('r4', 's1', 'a', limits)).toBe('ok');
    expect(await admit('r4', 's1', 'b', limits)).toBe('rate:subject');
    expect(await admit('r4', 's1', 'c', limits)).toBe('rate:subject');
    expect(await db.redis.get(keys.rateWindow('r4'))).toBe('1');
    expect(await admit('r4', null, 'd', limits)).toBe('ok');
    expect(await admit('r4', 's2', 'e', limits)).toBe('ok');
    expect(await admit('r4', null, 'f', limits)).toBe('rate:rootKey');
  });

  it('takes a slot in the root key and the subject at once, or in neither', async () => {
    const limits = { rate: 0, slots: 2, subjectRate: 0, subjectSlots: 1 };
    expect(await admit('r5', 's1', 'a', limits)).toBe('ok');
    expect(await admit('r5', 's1', 'b', limits)).toBe('slots:subject');
    expect(await db.redis.zrange(keys.querySlots('r5'), 0, -1)).toEqual(['a']);
    expect(await admit('r5', 's2', 'c', limits)).toBe('ok');
    expect(await admit('r5', 's3', 'd', limits)).toBe('slots:rootKey');
    expect(await db.redis.zrange(keys.querySubjectSlots('r5', 's3'), 0, -1)).toEqual([]);
  });
});

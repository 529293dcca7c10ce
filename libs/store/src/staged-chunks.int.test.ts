// applyApiBatch with a bound on writes per call against a real Redis: what does not fit is staged with
// the offset and applied in bounded calls (applyStagedChunk), each chunk once, by whoever drains it.
import { describe, expect, it } from 'vitest';
import { dayOfHour, hourOf, hoursOfMonth, monthOfHour } from '@va/core';
import { dumpApiCounts } from './testing';
import { expand, TupleCounter } from './aggregate';
import { applyApiBatches, drainStaged } from './apply';
import { applyApiBatch, applyApiBatchArgs } from './scripts/apply-scripts';
import { copyApiGeneration } from './generation-copy';
import { apiKeys } from './keys';
import { fileRedis } from './testing/file-redis';
import { TEST_RETENTION as retention } from './testing/ingest-events';

const db = fileRedis('store-staged-chunks');
const { space, assignCodes } = db;

describe('applyApiBatch with a bound on writes per call', () => {
  const now = Date.now();
  const h = hourOf(now);
  const cas = (newOff: number) => ({ offsetField: 'topic/0', expectedOff: null, newOff, expectedCmp: null });

  /** The same 300 tuples over two hours (by default the current and the last) for each API: 30 keys, 10 identities, 3 tag sets. */
  async function counterFor(api: string, hour = h) {
    await assignCodes(
      api,
      'k',
      Array.from({ length: 30 }, (_, n) => `key_${n}`),
    );
    await assignCodes(
      api,
      'i',
      Array.from({ length: 10 }, (_, n) => `id_${n}\n`),
    );
    await assignCodes(api, 's', ['', 'a', 'a,b']);
    const c = new TupleCounter();
    for (let n = 0; n < 300; n++) c.add(hour - (n % 2), n % 30, n % 10, n % 3, n % 9, 1 + (n % 4));
    return c;
  }
  const dump = async (api: string) => (await dumpApiCounts(db.redis, space, api, 'h')).sum;

  it('stages the fields beyond the bound with the offset and applies them in bounded calls right after', async () => {
    const [whole, bounded] = ['bound_whole', 'bound_chunked'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(bounded);
    expect(await applyApiBatches(db.redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }])).toEqual([
      { status: 'ok' },
    ]);
    const chunked = applyApiBatchArgs({ space, apiId: bounded, increments: inc, cas: cas(5), maxWrites: 40 });
    expect(chunked.staged).toBeGreaterThan(5);
    expect(
      await applyApiBatches(db.redis, space, [{ apiId: bounded, increments: inc, cas: cas(5) }], {
        maxWritesPerCall: 40,
      }),
    ).toEqual([{ status: 'ok' }]);
    expect(await db.redis.exists(apiKeys(space, bounded).stage)).toBe(0);
    expect(await dump(bounded)).toEqual(await dump(whole));
    expect(await db.redis.hget(apiKeys(space, bounded).offsets, 'topic/0')).toBe('5');
  });

  it('stages the section parts of closed hours too, in calls bounded by their size', async () => {
    // Hours of two days ago: written as section parts (aggregate.ts closedForParts), a few per cube.
    const [whole, bounded] = ['parts_whole', 'parts_chunked'];
    const closed = h - 48;
    const inc = expand(await counterFor(whole, closed), { now, retention, cmp: null, partsMinRows: 4 });
    await counterFor(bounded, closed);
    const parts = inc.buckets.flatMap((b) => [...b.parts.values()]);
    expect(parts.length).toBeGreaterThan(4);
    await applyApiBatches(db.redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    const maxWritesPerCall = 12;
    const call = applyApiBatchArgs({
      space,
      apiId: bounded,
      increments: inc,
      cas: cas(5),
      maxWrites: maxWritesPerCall,
    });
    // Every hour bucket is staged: the call itself appends no part.
    expect(call.args.filter((arg) => Buffer.isBuffer(arg) && parts.includes(arg))).toEqual([]);
    expect(call.staged).toBeGreaterThan(parts.length / 2);
    expect(
      await applyApiBatches(db.redis, space, [{ apiId: bounded, increments: inc, cas: cas(5) }], {
        maxWritesPerCall,
      }),
    ).toEqual([{ status: 'ok' }]);
    expect(await db.redis.exists(apiKeys(space, bounded).stage)).toBe(0);
    const lists = async (api: string) => {
      const keys = apiKeys(space, api);
      const out: Record<string, number> = {};
      for (const t of [closed, closed - 1]) {
        for (const suffix of await db.redis.smembers(keys.parts('h', t))) {
          out[`${t} ${suffix}`] = suffix.startsWith('L:')
            ? await db.redis.llen(keys.cube('h', t, suffix))
            : -1;
        }
      }
      return out;
    };
    // The same parts lists, each part once, and the same counts.
    expect(await lists(bounded)).toEqual(await lists(whole));
    expect(Object.keys(await lists(bounded)).some((k) => k.includes(' L:'))).toBe(true);
    expect(await dump(bounded)).toEqual(await dump(whole));
  });

  it('applies every chunk once when two writers of one API (two partitions) stage at the same time', async () => {
    const api = 'bound_two_writers';
    const inc = expand(await counterFor(api), { now, retention, cmp: null });
    const other = db.connect();
    const field = (partition: number) => ({ ...cas(5), offsetField: `topic/${partition}` });
    const results = await Promise.all([
      applyApiBatches(db.redis, space, [{ apiId: api, increments: inc, cas: field(0) }], {
        maxWritesPerCall: 20,
      }),
      applyApiBatches(other, space, [{ apiId: api, increments: inc, cas: field(1) }], {
        maxWritesPerCall: 20,
      }),
    ]);
    other.disconnect();
    expect(results).toEqual([[{ status: 'ok' }], [{ status: 'ok' }]]);
    expect(await db.redis.exists(apiKeys(space, api).stage)).toBe(0);
    const total = (await dump(api)).total.reduce((a, b) => a + b, 0);
    expect(total).toBe(2 * inc.events);
  });

  it('leaves the staged chunks of a writer that died after its call to whoever drains them, each once', async () => {
    const [whole, crashed] = ['crash_whole', 'crash_staged'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(crashed);
    await applyApiBatches(db.redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    // The call alone (the writer dies before applying the chunks): the offset moved, the chunks wait.
    const call = await applyApiBatch(db.redis, {
      space,
      apiId: crashed,
      increments: inc,
      cas: cas(5),
      maxWrites: 40,
    });
    expect(call.result).toEqual({ status: 'ok' });
    const keys = apiKeys(space, crashed);
    expect(await db.redis.hget(keys.offsets, 'topic/0')).toBe('5');
    expect(await db.redis.llen(keys.stage)).toBe(call.staged);
    expect(await dump(crashed)).not.toEqual(await dump(whole));
    // Two drainers at once (a writer and the compactor): every chunk is applied once.
    const other = db.connect();
    const drained = await Promise.all([
      drainStaged(db.redis, space, [crashed, whole]),
      drainStaged(other, space, [crashed]),
    ]);
    other.disconnect();
    expect(drained[0] + drained[1]).toBeGreaterThanOrEqual(call.staged);
    expect(await db.redis.exists(keys.stage)).toBe(0);
    expect(await dump(crashed)).toEqual(await dump(whole));
  });
  it("applies a stage left behind before a rebuild's copy carries the API over", async () => {
    const [whole, crashed] = ['copy_whole', 'copy_staged'];
    const inc = expand(await counterFor(whole), { now, retention, cmp: null });
    await counterFor(crashed);
    await applyApiBatches(db.redis, space, [{ apiId: whole, increments: inc, cas: cas(5) }]);
    expect(
      (await applyApiBatch(db.redis, { space, apiId: crashed, increments: inc, cas: cas(5), maxWrites: 40 }))
        .result,
    ).toEqual({ status: 'ok' });
    // Carry everything before next month into generation 7, as `rebuild --since` does.
    const month = monthOfHour(h) + 1;
    const boundary = { hour: hoursOfMonth(month)[0], day: dayOfHour(hoursOfMonth(month)[0]), month };
    const target = { prefix: space.prefix, generation: 7 };
    expect(await copyApiGeneration(db.redis, space, target, crashed, boundary)).toMatchObject({
      status: 'copied',
    });
    expect(await db.redis.exists(apiKeys(space, crashed).stage)).toBe(0);
    expect((await dumpApiCounts(db.redis, target, crashed, 'h')).sum).toEqual(await dump(whole));
  });
});

// The Redis building blocks of a rebuild against a real Redis, without Kafka (the batch processor
// stands in for both the live worker and the rebuild consumer): the copy of a generation with a
// --since boundary and its carries, the skip filter, the switch's conditions, the live worker
// following the switch, and the deletion of a generation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { hourOf } from '@va/core';
import { BatchProcessor, type BatchMessage } from '@va/ingest';
import {
  apiKeys,
  copyApiGeneration,
  deleteGeneration,
  generationRoot,
  initWatermarks,
  readCarries,
  readGeneration,
  readWatermark,
  sealApi,
  switchGeneration,
  transitionRebuild,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { createGenerator } from '@va/testkit';
import {
  expectedCounts,
  diffCounts,
  keysMatching,
  connectTarget,
  deletePrefix,
  dumpApiCounts,
} from '@va/store/testing';
import { boundaryOf } from './plan';

const DAY = 86_400_000;
const retention = { hourMs: 35 * DAY, dayMs: 400 * DAY, monthMs: 1830 * DAY };
const TOPIC = 'ev';

let t: TestEnv;
let redis: RedisClient;
beforeAll(async () => {
  t = await testEnv('rebuild carry over');
  redis = connectTarget(t.redis);
});
afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

const messages = (events: readonly VerificationEvent[], first: number): BatchMessage[] =>
  events.map((e, n) => ({
    offset: String(first + n),
    key: Buffer.from(e.apiId),
    value: Buffer.from(JSON.stringify(e)),
  }));

async function apply(
  p: BatchProcessor,
  events: readonly VerificationEvent[],
  first: number,
  wm: number | null,
) {
  const outcome = await p.process(
    { topic: TOPIC, partition: 0, messages: messages(events, first), lastOffset: first + events.length - 1 },
    wm,
  );
  expect(outcome.status).toBe('applied');
}

async function countsOf(space: KeySpace, apis: string[], r: 'h' | 'm') {
  return new Map(
    await Promise.all(apis.map(async (a) => [a, (await dumpApiCounts(redis, space, a, r)).sum] as const)),
  );
}

describe('rebuild --since building blocks', () => {
  it('carries old periods over, recounts new ones, switches only when caught up, and deletes the old generation', async () => {
    const now = Date.now();
    const boundary = boundaryOf(now);
    const prefix = t.keyPrefix;
    const g1: KeySpace = { prefix, generation: 1 };
    const g2: KeySpace = { prefix, generation: 2 };
    // Old events: before the boundary and past the hour horizon (day and month rollups only).
    const oldGen = createGenerator({
      seed: 1,
      apis: 3,
      keys: 40,
      identities: 10,
      startMs: boundary.ms - 50 * DAY,
      spanMs: 10 * DAY,
    });
    const newGen = createGenerator({
      seed: 2,
      apis: 3,
      keys: 40,
      identities: 10,
      startMs: boundary.ms,
      spanMs: Math.max(now - boundary.ms - 60_000, 1),
    });
    const old = (n: number) => Array.from({ length: n }, () => oldGen.next());
    const mixed = (n: number) =>
      Array.from({ length: n }, (_, i) => (i % 2 === 0 ? oldGen.next() : newGen.next()));
    // Offsets 0..49: records from before the boundary (only old events); then a mix.
    const batch1 = [...old(50), ...mixed(50)];
    const batch2 = mixed(50); // offsets 100..149, applied to g1 after the copy
    const batch3 = mixed(40); // offsets 150..189, live after the switch
    const all = [...batch1, ...batch2, ...batch3];
    const apis = [...new Set(all.map((e) => e.apiId))].sort();

    const deadLetter = async () => {
      throw new Error('no event of this test is invalid');
    };
    const live = new BatchProcessor({ redis, prefix, retention, clock: () => now, deadLetter });
    // The live compactor has compacted g1 up to the boundary: old events go to the rollups only
    // (an hour not compacted yet would wait in its hour bucket: docs/rollups.md "Retention").
    for (const a of apis) await redis.set(apiKeys(g1, a).compactedThrough, String(boundary.hour - 1));
    await apply(live, batch1, 0, null);
    // g1 is partly sealed (docs/store-v2.md): sections are carried as well as deltas.
    const sealed = await sealApi(redis, g1, apis[0]!, boundary.hour - 1, { now, retention });
    expect(sealed.sealed).toBeGreaterThan(0);

    // Copy phase: the replay starts at offset 50 (the first record from the boundary on).
    await initWatermarks(redis, g2, [{ field: `${TOPIC}/0`, wm: 49 }]);
    for (const a of apis) expect((await copyApiGeneration(redis, g1, g2, a, boundary)).status).toBe('copied');
    expect((await copyApiGeneration(redis, g1, g2, apis[0]!, boundary)).status).toBe('already');
    const carries = await readCarries(redis, g2, apis);
    for (const a of apis) expect(carries.get(a)?.get(`${TOPIC}/0`)).toBe(99);
    await expect(copyApiGeneration(redis, { prefix, generation: 7 }, g1, apis[0]!, null)).rejects.toThrow(
      /not empty/,
    );

    // The live worker goes on in g1; the rebuild consumer replays 50.. into g2, skipping what was carried.
    await apply(live, batch2, 100, 99);
    const rebuild = new BatchProcessor({
      redis,
      prefix,
      retention,
      clock: () => now,
      deadLetter,
      generation: 2,
      skipEvent: (e, field, offset) =>
        e.hour < boundary.hour && offset <= (carries.get(e.apiId)?.get(field) ?? -1),
    });

    // Not ready, then behind, then switched.
    expect((await switchGeneration(redis, prefix, 1, 2, now)).status).toBe('not-ready');
    await transitionRebuild(redis, prefix, [null], 'compacting', { source: 1, target: 2 }, true);
    const behind = await switchGeneration(redis, prefix, 1, 2, now);
    expect(behind).toMatchObject({
      status: 'behind',
      count: 1,
      partitions: [{ field: 'ev/0', needed: 149, has: 49 }],
    });
    await apply(rebuild, [...batch1.slice(50), ...batch2], 50, 49);
    expect(await switchGeneration(redis, prefix, 1, 2, now)).toEqual({ status: 'switched' });
    expect(await readGeneration(redis, prefix)).toBe(2);
    expect((await switchGeneration(redis, prefix, 1, 2, now)).status).toBe('not-current');

    // The same counts in both generations at the switch.
    const upTo149 = [...batch1, ...batch2];
    for (const r of ['h', 'm'] as const) {
      const a = await countsOf(g1, apis, r);
      const b = await countsOf(g2, apis, r);
      for (const api of apis) expect(diffCounts(`${api} ${r}`, a.get(api)!, b.get(api)!)).toEqual([]);
    }

    // The live worker notices the switch with its next batch and goes on in g2 from g2's wm.
    expect(await live.generationSwitched()).toBe(true);
    expect((await live.keySpace()).generation).toBe(2);
    expect(await rebuild.generationSwitched()).toBe(false);
    await apply(live, batch3, 150, await readWatermark(redis, g2, TOPIC, 0));

    const expectNew = expectedCounts(all, (e) => hourOf(e.time) >= boundary.hour);
    const expectOld = expectedCounts(all, (e) => hourOf(e.time) < boundary.hour);
    const hours = await countsOf(g2, apis, 'h');
    const months = await countsOf(g2, apis, 'm');
    for (const api of apis) {
      expect(diffCounts(`${api} h`, expectNew.get(api)!, hours.get(api)!)).toEqual([]);
      expect(diffCounts(`${api} m`, expectOld.get(api)!, months.get(api)!)).toEqual([]);
    }
    expect(upTo149.length + batch3.length).toBe(all.length);

    // The old generation goes; the current one cannot.
    expect(await deleteGeneration(redis, prefix, 1, { batch: 7 })).toBeGreaterThan(0);
    expect(await keysMatching(redis, `${generationRoot(prefix, 1)}*`)).toEqual([]);
    await expect(deleteGeneration(redis, prefix, 2)).rejects.toThrow(/current/);
  });
});

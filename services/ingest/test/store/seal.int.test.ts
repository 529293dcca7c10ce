// Sealing (docs/store-v2.md) against a real Redis: events written through the ingest worker's batch
// processor, compacted and sealed in rounds, with late events landing while seals are in progress
// and seals that die half way; cube-dump (sections + sealing + delta hashes) must equal the counts
// computed from the events at every step, and sealed buckets must really be sections. Here, not in libs/store,
// because seeding through ingest from the store's own tests would be a package cycle.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS, dayOfHour, hourOf, monthOfHour, type Retention } from '@va/core';
import {
  deletePrefix,
  diffCounts,
  dumpApiCounts,
  emptyDecodedCounts,
  expectedCounts,
} from '@va/store/testing';
import { seedEvents } from '../../src/testing';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { createGenerator, seededRandom } from '@va/workload';
import {
  apiKeys,
  beginSeal,
  commitSeal,
  compactApi,
  decodeSection,
  deriveIdentityKey,
  encodeSection,
  type KeySpace,
  prepareSeal,
  readCompactedThrough,
  type Resolution,
  sealableBuckets,
  sealApi,
  sealBucket,
  type SealTarget,
  sectionVersion,
} from '@va/store';

const retention: Retention = { hourMs: 35 * DAY_MS, dayMs: 400 * DAY_MS, monthMs: 5 * 366 * DAY_MS };
// Real time: Redis expires buckets by its own clock (bucket end + retention).
const now = Date.now();

let t: TestEnv;
let redis: Redis;
let space: KeySpace;

beforeAll(async () => {
  t = await testEnv('seal');
  redis = new Redis(t.redisUrl);
  space = { prefix: t.keyPrefix, generation: 1 };
});

afterAll(async () => {
  await deletePrefix(t.redisUrl, t.keyPrefix);
  redis.disconnect();
});

/** What each resolution must hold: hours all events; days and months the compacted hours. */
async function differences(events: readonly VerificationEvent[]): Promise<string[]> {
  const problems: string[] = [];
  for (const apiId of [...new Set(events.map((e) => e.apiId))].sort()) {
    const cmp = (await readCompactedThrough(redis, space, apiId)) ?? -1;
    const mine = events.filter((e) => e.apiId === apiId);
    for (const r of ['h', 'd', 'm'] as const) {
      const expected =
        expectedCounts(mine, (e) => r === 'h' || hourOf(e.time) <= cmp).get(apiId) ?? emptyDecodedCounts();
      const { sum } = await dumpApiCounts(redis, space, apiId, r);
      problems.push(...diffCounts(`${apiId} ${r}`, expected, sum, 3));
    }
  }
  return problems;
}

const seed = (events: readonly VerificationEvent[]) =>
  seedEvents(redis, events, { prefix: space.prefix, now, retention });

/** Delta hashes (v1 keys) of an API: cube hashes that are neither sections nor sealing hashes. */
async function deltaKeys(apiId: string): Promise<string[]> {
  const base = apiKeys(space, apiId).base;
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${base}:[hdm]:*`, 'COUNT', 1000);
    out.push(...keys.filter((k) => !/:S:|:z:|:zparts$|:zid$|:parts$/.test(k)));
    cursor = next;
  } while (cursor !== '0');
  return out;
}

describe('sealableBuckets', () => {
  it('takes compacted hours and any day or month, oldest first, at most max', () => {
    const dirty = [
      { member: 'h:10', score: 10 },
      { member: 'h:12', score: 12 },
      { member: 'd:0', score: 23 },
      { member: 'm:0', score: 743 },
      { member: 'x:1', score: 1 },
    ];
    expect(sealableBuckets(dirty, 11, 10).map((b) => `${b.res}:${b.index}`)).toEqual(['h:10', 'd:0', 'm:0']);
    expect(sealableBuckets(dirty, null, 10).map((b) => `${b.res}:${b.index}`)).toEqual(['d:0', 'm:0']);
    expect(sealableBuckets(dirty, 20, 1).map((b) => `${b.res}:${b.index}`)).toEqual(['h:10']);
  });
});

describe('sealApi', () => {
  it('seals closed hours oldest first, at most max, and names the first hour it left', async () => {
    const apiId = 'api_first_left';
    const first = hourOf(now) - 30;
    const events = [0, 1, 2].map((n) => ({
      requestId: `fl${n}`,
      time: (first + n) * 3_600_000 + 60_000,
      workspaceId: 'ws_1',
      apiId,
      keyId: 'key_1',
      outcome: 'VALID' as const,
    }));
    await seed(events);
    const options = { now, retention, only: 'h' as const };
    expect(await sealApi(redis, space, apiId, hourOf(now) - 1, { ...options, max: 2 })).toMatchObject({
      sealed: 2,
      firstLeft: first + 2,
    });
    expect(await sealApi(redis, space, apiId, hourOf(now) - 1, { ...options, max: 2 })).toMatchObject({
      sealed: 1,
      firstLeft: null,
    });
  });
});

describe('sealing', () => {
  it('keeps every count exactly once through rounds of late events, seals in progress and dying seals', async () => {
    const random = seededRandom(17);
    const generator = createGenerator({
      seed: 17,
      apis: 2,
      keys: 60,
      identities: 12,
      startMs: now - 8 * DAY_MS,
      spanMs: 8 * DAY_MS - 3 * 3_600_000,
    });
    const all: VerificationEvent[] = [];
    const apis = generator.apiIds;
    for (let round = 0; round < 3; round++) {
      const events = Array.from({ length: 800 }, () => generator.next());
      all.push(...events);
      await seed(events);
      expect(await differences(all)).toEqual([]);
      const closedBound = hourOf(now) - 2 - (2 - round) * 24 * 3; // compaction catches up in steps
      for (const apiId of apis) {
        await compactApi(redis, space, apiId, { closedBound, retention, now });
        const cmp = await readCompactedThrough(redis, space, apiId);
        // A seal that dies after its first step (beginSeal) leaves its sealing hashes behind...
        const keys = apiKeys(space, apiId);
        const pick = (await redis.zrange(keys.dirty, 0, -1))[Math.floor(random() * 3)];
        if (pick && (pick.startsWith('d') || pick.startsWith('m'))) {
          const [r, index] = pick.split(':') as [Resolution, string];
          await beginSeal(redis, { keys, res: r, index: Number(index) });
        }
        // ...late events land meanwhile (in the hashes being sealed' buckets too)...
        const late = Array.from({ length: 200 }, () => generator.next()).filter((e) => e.apiId === apiId);
        all.push(...late);
        await seed(late);
        expect(await differences(all)).toEqual([]);
        // ...and the next run resumes it and seals the rest.
        const run = await sealApi(redis, space, apiId, cmp, { now, retention });
        expect(run.sealed).toBeGreaterThan(0);
        expect(await differences(all)).toEqual([]);
      }
    }
    // After a full compaction and seal, only hours after cmp (and nothing else) keep delta hashes.
    for (const apiId of apis) {
      await compactApi(redis, space, apiId, { closedBound: hourOf(now) - 2, retention, now });
      const cmp = await readCompactedThrough(redis, space, apiId);
      await sealApi(redis, space, apiId, cmp, { now, retention });
      const left = await deltaKeys(apiId);
      expect(left.filter((k) => !new RegExp(`:h:(${hourOf(now) - 1}|${hourOf(now)}):`).test(k))).toEqual([]);
      const sections = await redis.keys(`${apiKeys(space, apiId).base}:d:*:S:*`);
      expect(sections.length).toBeGreaterThan(0);
      // The identity x key section beside f: for days and months, not for hours (withIdentityKey).
      expect(sections.some((key) => key.endsWith(':S:x'))).toBe(true);
      expect(await redis.keys(`${apiKeys(space, apiId).base}:h:*:S:x`)).toEqual([]);
      expect((await redis.keys(`${apiKeys(space, apiId).base}:h:*:S:f`)).length).toBeGreaterThan(0);
    }
    expect(await differences(all)).toEqual([]);
  });

  it("an hour's next seal deletes the x section earlier code wrote for it", async () => {
    const hour = hourOf(now) - 30;
    const events = Array.from({ length: 40 }, (_, n) => ({
      requestId: `x-${n}`,
      time: hour * 3_600_000 + n,
      workspaceId: 'ws',
      apiId: 'api_hour_x',
      keyId: `key_${n % 4}`,
      outcome: 'VALID' as const,
      identity: { id: `id_${n % 3}`, externalId: `ext_${n % 3}` },
    }));
    await seed(events);
    await compactApi(redis, space, 'api_hour_x', { closedBound: hourOf(now) - 2, retention, now });
    expect(await sealBucket(redis, space, 'api_hour_x', 'h', hour, { now, retention })).not.toBeNull();
    const keys = apiKeys(space, 'api_hour_x');
    expect(await redis.exists(keys.section('h', hour, 'f'), keys.section('h', hour, 'x'))).toBe(1);
    // As sealed before x became days and months only.
    const f = await redis.getBuffer(keys.section('h', hour, 'f'));
    await redis.set(
      keys.section('h', hour, 'x'),
      encodeSection(deriveIdentityKey(decodeSection(f!), sectionVersion(f!))),
    );
    const late = [{ ...events[0]!, requestId: 'x-late' }];
    await seed(late);
    expect(await sealBucket(redis, space, 'api_hour_x', 'h', hour, { now, retention })).not.toBeNull();
    expect(await redis.exists(keys.section('h', hour, 'x'))).toBe(0);
    expect(await differences([...events, ...late])).toEqual([]);
  });

  it('a stale commit loses: two sealers of one bucket count nothing twice', async () => {
    const generator = createGenerator({
      seed: 5,
      apis: 1,
      keys: 10,
      identities: 3,
      startMs: now - 3 * DAY_MS,
      spanMs: DAY_MS,
    });
    const events = Array.from({ length: 300 }, () => ({ ...generator.next(), apiId: 'api_stale' }));
    await seed(events);
    await compactApi(redis, space, 'api_stale', { closedBound: hourOf(now) - 2, retention, now });
    const day = dayOfHour(hourOf(events[0]!.time));
    const sealers = await Promise.all(
      [0, 1, 2].map(() => sealBucket(redis, space, 'api_stale', 'd', day, { now, retention })),
    );
    expect(sealers.filter((s) => s !== null).length).toBeGreaterThanOrEqual(1);
    expect(await differences(events)).toEqual([]);
    // A late event for that day after the seal, and a second seal: still exact, one section.
    const late = [{ ...events[0]!, requestId: 'late-1' }];
    await seed(late);
    await sealBucket(redis, space, 'api_stale', 'd', day, { now, retention });
    expect(await differences([...events, ...late])).toEqual([]);
    expect(await redis.exists(apiKeys(space, 'api_stale').parts('d', day))).toBe(0);
    expect(monthOfHour(hourOf(events[0]!.time))).toBeGreaterThan(0);
  });
});

describe('#39 item 1: a seal commits only over the delta it read', () => {
  const hour = hourOf(now) - 40;
  const event = (apiId: string, n: number, at = hour): VerificationEvent => ({
    requestId: `${apiId}-${at}-${n}`,
    time: at * 3_600_000 + (n % 3_600_000),
    workspaceId: 'ws',
    apiId,
    keyId: `key_${n % 5}`,
    outcome: n % 4 === 0 ? 'RATE_LIMITED' : 'VALID',
    identity: { id: `id_${n % 3}`, externalId: `ext_${n % 3}` },
    tags: n % 2 === 0 ? ['pro'] : [],
  });
  const options = { now, retention };

  it('#39 item 1: A begins, B resumes, A commits, B reads, a late write, A begins again, B commits: B loses', async () => {
    const apiId = 'api_two_sealers';
    const target: SealTarget = { keys: apiKeys(space, apiId), res: 'h', index: hour };
    const d1 = Array.from({ length: 10 }, (_, n) => event(apiId, n));
    await seed(d1);
    const a = await beginSeal(redis, target);
    const b = await beginSeal(redis, target); // resumes A's seal
    if (a.kind !== 'seal' || b.kind !== 'seal') throw new Error('expected two seals in progress');
    expect(b.sealId).toBe(a.sealId);
    expect(await commitSeal(redis, target, (await prepareSeal(redis, target, a, options)).commit)).toBe('ok');
    const bRead = await prepareSeal(redis, target, b, options); // section holds D1, the z: hashes are gone
    const d2 = Array.from({ length: 5 }, (_, n) => event(apiId, 100 + n));
    await seed(d2);
    const a2 = await beginSeal(redis, target); // D2 moves to its z: names
    if (a2.kind !== 'seal') throw new Error('expected a new seal');
    expect(a2.sealId).not.toBe(a.sealId);
    expect(await commitSeal(redis, target, bRead.commit)).toBe('gone');
    expect(await differences([...d1, ...d2])).toEqual([]);
    expect(await commitSeal(redis, target, (await prepareSeal(redis, target, a2, options)).commit)).toBe(
      'ok',
    );
    expect(await differences([...d1, ...d2])).toEqual([]);
  });

  it('#39 item 1: three sealers and late writes in a random order stay exact (oracle)', async () => {
    for (const seed0 of [1, 2, 3, 4, 5, 6]) {
      const random = seededRandom(seed0);
      const apiId = `api_random_sealers_${seed0}`;
      const hours = [hour, hour + 1];
      const targets = hours.map((h): SealTarget => ({ keys: apiKeys(space, apiId), res: 'h', index: h }));
      type Sealer =
        | { step: 'idle' }
        | {
            step: 'begun';
            target: SealTarget;
            begun: Extract<Awaited<ReturnType<typeof beginSeal>>, { kind: 'seal' }>;
          }
        | { step: 'read'; target: SealTarget; commit: Awaited<ReturnType<typeof prepareSeal>>['commit'] };
      const sealers: Sealer[] = [{ step: 'idle' }, { step: 'idle' }, { step: 'idle' }];
      const all: VerificationEvent[] = [];
      let written = 0;
      const write = async (count: number) => {
        const at = hours[Math.floor(random() * hours.length)]!;
        const events = Array.from({ length: count }, () => event(apiId, written++, at));
        all.push(...events);
        await seed(events);
      };
      await write(20);
      await write(20);
      for (let step = 0; step < 60; step++) {
        const n = Math.floor(random() * (sealers.length + 1));
        if (n === sealers.length) {
          await write(1 + Math.floor(random() * 4));
          continue;
        }
        const sealer = sealers[n]!;
        if (sealer.step === 'idle') {
          const target = targets[Math.floor(random() * targets.length)]!;
          const begun = await beginSeal(redis, target);
          if (begun.kind === 'seal') sealers[n] = { step: 'begun', target, begun };
        } else if (sealer.step === 'begun') {
          const { commit } = await prepareSeal(redis, sealer.target, sealer.begun, options);
          sealers[n] = { step: 'read', target: sealer.target, commit };
        } else {
          await commitSeal(redis, sealer.target, sealer.commit);
          sealers[n] = { step: 'idle' };
        }
        expect(await differences(all), `seed ${seed0}, step ${step}`).toEqual([]);
      }
      for (const target of targets) await sealBucket(redis, space, apiId, target.res, target.index, options);
      expect(await differences(all), `seed ${seed0}, sealed`).toEqual([]);
      // Every seal committed or lost: no seal id is left behind.
      expect(await redis.keys(`${apiKeys(space, apiId).base}:h:*:z*`)).toEqual([]);
    }
  });
});

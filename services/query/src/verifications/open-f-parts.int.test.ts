// An open bucket's f written as parts per identity shard (docs/store-v2.md "An open hour's f as parts per identity
// shard"): busy batches into the current and the previous hour, at a clock inside Asia/Kolkata's day edge (18:30 to
// 24:00 UTC), so that the open edge of the declared billing zone takes them as parts too. Questions that name
// identities (their shards' lists, read by name) and questions that name none (every list in the parts sets), by
// UTC hour and by Kolkata day, equal the oracle: while the parts pile up, after the compactor's open-bucket policy
// sealed them (hours and the edge), and with more batches after that seal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { HOUR_MS, hourOf } from '@va/core';
import { apiKeys, declareBillingZone, sealApi } from '@va/store';
import { seededRandom } from '@va/workload';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { expectOracleAnswer } from '../testing/oracle-answer';

const API = 'api_open_parts';
const NOW = Date.UTC(2026, 2, 18, 20, 30);
const NOW_HOUR = hourOf(NOW);
/** Identities of two shards (codes 0-31 and 32-49, in order of first appearance) and events without one. */
const IDENTITIES = 50;
const random = seededRandom(20261129);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

let h: QueryHarness;
let key: string;
const events: VerificationEvent[] = [];
let n = 0;

function event(hour: number): VerificationEvent {
  const identity = random() < 0.85 ? Math.floor(random() * IDENTITIES) : undefined;
  const time = hour * HOUR_MS + Math.floor(random() * Math.min(HOUR_MS, NOW - hour * HOUR_MS));
  return {
    requestId: `r${n++}`,
    time,
    workspaceId: 'ws_1',
    apiId: API,
    keyId: `key_${Math.floor(random() * 12)}`,
    outcome: pick(OUTCOMES),
    ...(identity !== undefined && { identity: { id: `id_${identity}`, externalId: `x${identity}` } }),
    tags: ['a', 'b'].filter(() => random() < 0.4),
    ...(random() < 0.5 && { region: pick(['eu', 'us']) }),
  };
}

/** A busy batch: every identity first in order (codes 0..49), then events of both open hours. */
async function writeBusyBatch(): Promise<void> {
  const batch = Array.from({ length: 300 }, () => event(NOW_HOUR - Math.floor(random() * 2)));
  await h.seed(batch);
  events.push(...batch);
}

const space = () => ({ prefix: h.config.keyPrefix, generation: 1 });
/** The open buckets' shard lists: the hours' and the Kolkata edge's (zone 1, a day edge). */
const shardLists = async (): Promise<string[]> =>
  (await h.redis.keys(`${apiKeys(space(), API).base}:*:L:f:*`)).map((k) => k.split(':').slice(-5).join(':'));

async function expectOracle(label: string): Promise<void> {
  const start = NOW - 2 * 24 * HOUR_MS;
  const x = `x${Math.floor(random() * IDENTITIES)}`;
  const far = `x${32 + Math.floor(random() * (IDENTITIES - 32))}`;
  const queries = [
    `groupBy=hour&start=${start}&externalId=${x}&groupBy=key`,
    `groupBy=hour&start=${start}&externalId=${far}&groupBy=tag`,
    `groupBy=hour&start=${start}&groupBy=key&groupBy=identity`,
    `groupBy=hour&start=${start}&groupBy=identity&tag=a`,
    `groupBy=day&timeZone=Asia/Kolkata&start=${start}&externalId=${far}&groupBy=key`,
    `groupBy=day&timeZone=Asia/Kolkata&start=${start}&groupBy=identity&region=eu`,
    `groupBy=day&timeZone=Asia/Kolkata&start=${start}&groupBy=key&groupBy=identity&groupBy=tag`,
  ];
  for (const qs of queries) await expectOracleAnswer(h, key, events, `apiId=${API}&${qs}`, label);
}

beforeAll(async () => {
  h = await queryHarness('open-f-parts', { now: NOW });
  key = await h.rootKey();
  await h.registerApi(API);
  await declareBillingZone(h.redis, h.config.keyPrefix, API, 'Asia/Kolkata');
  // The identities' codes in order (the first batch names each once), so that both shards hold some.
  const first = Array.from({ length: IDENTITIES }, (_, i) => ({
    ...event(NOW_HOUR),
    identity: { id: `id_${i}`, externalId: `x${i}` },
  }));
  await h.seed(first);
  events.push(...first);
});
afterAll(async () => {
  await h.close();
});

describe("an open bucket's f as parts per identity shard", () => {
  it('answers as the oracle while parts pile up, once the open buckets are sealed, and after', async () => {
    for (let round = 0; round < 3; round++) await writeBusyBatch();
    const lists = await shardLists();
    // Both open hours and the open edge, both identity shards and the events without identity.
    expect(lists).toEqual(
      expect.arrayContaining([`h:${NOW_HOUR}:L:f:0`, `h:${NOW_HOUR}:L:f:1`, `h:${NOW_HOUR}:L:f:_`]),
    );
    expect(lists.some((list) => list.startsWith(`h:${NOW_HOUR - 1}:`))).toBe(true);
    expect(lists.some((list) => list.startsWith('z1d:'))).toBe(true);
    await expectOracle('parts');

    // The compactor's policy for open buckets, with no closed bound: every open hour and edge with a delta is sealed.
    await sealApi(h.redis, space(), API, null, {
      now: NOW,
      retention: h.config.retention,
      openHours: { minHashes: 1, everyMs: 0 },
    });
    expect(await shardLists()).toEqual([]);
    await expectOracle('sealed');

    await writeBusyBatch();
    expect((await shardLists()).length).toBeGreaterThan(0);
    await expectOracle('sealed, then more parts');
  });
});

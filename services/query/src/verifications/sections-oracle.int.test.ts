// Issue #10 "New test": late events written into buckets while they are being sealed and while the
// service serves sections from its cache; every answer is compared with the oracle (@va/core).
//
// Randomized (seeded, the seed is in the test name): rounds of (events at random hours of the last
// 40 days, so most are late, and a few before every earlier one; compaction; seal steps on random buckets of every resolution: whole
// seals, seals begun and left in progress, seals in progress committed; late events into the
// buckets being sealed; queries over every cube through the service). Writes put closed buckets'
// counts into section parts or hash fields at random (docs/store-v2.md "History written as
// section parts"), and the open previous hour's f into parts per identity shard, so parts are compacted, sealed, sealed
// half-way and read beside everything else. The service keeps one
// section cache for the whole run, so later rounds answer from cached sections whose buckets were
// sealed again, or not, meanwhile.
//
// The seal steps are the compactor's scripts (beginSeal alone leaves a seal in progress; sealBucket
// begins or resumes one and commits it), through @va/store/testing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { HOUR_MS, hoursOfDay, hoursOfMonth, hourOf, monthOfDay } from '@va/core';
import { apiKeys, compactApi, type Resolution } from '@va/store';
import { seededRandom } from '@va/workload';
import { type BucketAt, sealNow, beginSealOnly } from '@va/store/testing';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { expectOracleAnswer } from '../testing/oracle-answer';
import { LONG_RETENTION } from '../testing/fixtures';
import { scaled } from '@va/testkit/time';

const API = 'api_sealing';
const NOW = Date.UTC(2026, 2, 18, 10, 30);
const NOW_HOUR = hourOf(NOW);
const DAYS = 40;
const SEED = 20261123;
const ROUNDS = 4;

let h: QueryHarness;
let key: string;

beforeAll(async () => {
  h = await queryHarness('sections-oracle', { now: NOW, env: LONG_RETENTION });
  key = await h.rootKey();
  await h.registerApi(API);
});
afterAll(async () => {
  await h.close();
});

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const TAGS = ['a', 'b', 'c', 'd'];
const REGIONS = ['eu', 'us', 'ap'];
let n = 0;

function eventAt(hour: number): VerificationEvent {
  const identity = random() < 0.8 ? Math.floor(random() * 6) : undefined;
  return {
    requestId: `r${n++}`,
    time: hour * HOUR_MS + Math.floor(random() * HOUR_MS),
    workspaceId: 'ws_1',
    apiId: API,
    keyId: `key_${Math.floor(random() * 9)}`,
    outcome: pick(OUTCOMES),
    ...(identity !== undefined && { identity: { id: `id_${identity}`, externalId: `x${identity}` } }),
    tags: TAGS.filter(() => random() < 0.4),
    ...(random() < 0.6 && { region: pick(REGIONS) }),
  };
}

/** An hour of the bucket (never now's hour: an event at a random time of it may lie after now). */
function hourIn(b: BucketAt): number {
  const hours = b.res === 'h' ? [b.index] : b.res === 'd' ? hoursOfDay(b.index) : hoursOfMonth(b.index);
  return Math.min(pick(hours), NOW_HOUR - 1);
}

/** Buckets holding data (idx:h/d/m): closed hours, compacted or not (the sealer's rule), days and months. */
async function buckets(): Promise<BucketAt[]> {
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const keys = apiKeys(space, API);
  const out: BucketAt[] = [];
  for (const res of ['h', 'd', 'm'] as Resolution[]) {
    for (const index of (await h.redis.zrange(keys.bucketIndex(res), 0, -1)).map(Number)) {
      if (res === 'h' && index >= NOW_HOUR) continue;
      out.push({ space, apiId: API, res, index });
    }
  }
  return out;
}

function queries(): string[] {
  const start = String((NOW_HOUR - Math.floor(random() * DAYS * 24)) * HOUR_MS);
  const x = `x${Math.floor(random() * 6)}`;
  const k = `key_${Math.floor(random() * 9)}`;
  const t = pick(TAGS);
  const r = pick(REGIONS);
  return [
    `groupBy=day&start=${start}`,
    // Starting long before the API's first data (the service reads from its first bucket on).
    `groupBy=day&start=${(NOW_HOUR - (DAYS + 30) * 24) * HOUR_MS}`,
    `groupBy=hour&start=${(NOW_HOUR - 47) * HOUR_MS}`,
    `groupBy=month`,
    `externalId=${x}&groupBy=key&groupBy=day&start=${start}`,
    `externalId=${x}&groupBy=hour&start=${(NOW_HOUR - 30) * HOUR_MS}`,
    `groupBy=identity&orderBy=total&order=desc&limit=3&start=${start}`,
    `tag=${t}&tag=${pick(TAGS)}&groupBy=day&start=${start}`,
    `groupBy=tag&start=${start}`,
    // Grouped by tag alone or region alone: sealed sections summed per tag / region (libs/store projection.ts).
    `groupBy=tag&groupBy=day&start=${start}`,
    `groupBy=tag&groupBy=day&timeZone=America/New_York&start=${start}`,
    `groupBy=region&start=${start}`,
    `groupBy=region&groupBy=month`,
    `keyId=${k}&keyId=key_1&groupBy=day&start=${start}`,
    `groupBy=key&groupBy=identity&start=${start}`,
    `groupBy=tags&groupBy=key`,
    `externalId=${x}&tag=${t}&groupBy=key`,
    `region=${r}&groupBy=day&start=${start}`,
    `region=${r},${pick(REGIONS)}&tag=${t}&groupBy=identity`,
    `groupBy=region&groupBy=key&start=${start}`,
    `groupBy=tag&groupBy=region&groupBy=month`,
    // Tag sets in several regions: one row per set, so the codes are not ranked one by one.
    `groupBy=tags&orderBy=total&order=desc&limit=3&start=${start}`,
  ].map((qs) => `apiId=${API}&${qs}`);
}

const expectOracle = (events: readonly VerificationEvent[], qs: string, round: number | string) =>
  expectOracleAnswer(h, key, events, qs, round);

async function metric(name: string): Promise<number> {
  const body = await h.metrics();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1] ?? NaN);
}

const events: VerificationEvent[] = [];
// Each write takes its counts to closed buckets as section parts or as hash fields at random: every
// cube a part (1), most (2), the ingest default, or none (Infinity).
const PARTS_MIN_ROWS = [1, 2, undefined, Infinity] as const;
const write = async (batch: VerificationEvent[]) => {
  const partsMinRows = PARTS_MIN_ROWS[Math.floor(random() * PARTS_MIN_ROWS.length)];
  await h.seed(batch, partsMinRows === undefined ? {} : { partsMinRows });
  events.push(...batch);
};
const partsLists = async () => (await h.redis.keys(`${h.config.keyPrefix}:*:L:*`)).length;
/** An open hour's f lists per identity shard (docs/store-v2.md "An open hour's f as parts per identity shard"). */
const shardLists = async () =>
  (await h.redis.keys(`${h.config.keyPrefix}:*:h:${NOW_HOUR - 1}:*L:f:*`)).length;
const sealOptions = () => ({ now: NOW, retention: h.config.retention });

describe('late events while buckets are sealed and their sections cached', () => {
  it(`answers as the oracle in every round (seed ${SEED})`, { timeout: scaled(120_000) }, async () => {
    let sealing: BucketAt[] = [];
    let sawParts = 0;
    let sawShardLists = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      await write(Array.from({ length: 250 }, () => eventAt(NOW_HOUR - Math.floor(random() * DAYS * 24))));
      // The previous hour is still open (written as hash fields, its f as parts per identity shard when busy).
      await write(Array.from({ length: 40 }, () => eventAt(NOW_HOUR - 1)));
      sawShardLists += await shardLists();
      await compactApi(h.redis, { prefix: h.config.keyPrefix, generation: 1 }, API, {
        closedBound: NOW_HOUR - 1 - Math.floor(random() * 48),
        retention: h.config.retention,
        now: NOW,
      });
      // Seal steps: commit some seals left in progress, seal or begin sealing others.
      const options = sealOptions();
      for (const b of sealing) if (random() < 0.5) await sealNow(h.redis, b, options);
      sealing = [];
      for (const b of await buckets()) {
        const u = random();
        if (u < 0.4) await sealNow(h.redis, b, options);
        else if (u < 0.6 && (await beginSealOnly(h.redis, b))) sealing.push(b);
      }
      // Compaction again, further: it carries hours sealed (or being sealed) before it reached them.
      await compactApi(h.redis, { prefix: h.config.keyPrefix, generation: 1 }, API, {
        closedBound: NOW_HOUR - 1 - Math.floor(random() * 12),
        retention: h.config.retention,
        now: NOW,
      });
      // Late events into buckets being sealed (their delta grows beside the z: hashes) ...
      await write(sealing.flatMap((b) => Array.from({ length: 3 }, () => eventAt(hourIn(b)))));
      sawParts += await partsLists();
      for (const qs of queries()) await expectOracle(events, qs, round);
      // ... and into sealed buckets whose sections the service holds now, and a few before the
      // first data so far (a day with no bucket when the service last answered).
      await write(Array.from({ length: 60 }, () => eventAt(NOW_HOUR - Math.floor(random() * DAYS * 24))));
      await write(Array.from({ length: 3 }, () => eventAt(NOW_HOUR - (DAYS + round * 5) * 24)));
      for (const qs of queries()) await expectOracle(events, qs, round);
    }
    expect(sealing.length).toBeGreaterThan(0);
    expect(sawParts).toBeGreaterThan(0);
    expect(sawShardLists).toBeGreaterThan(0);
    expect(await metric('va_query_section_cache_hits_total')).toBeGreaterThan(0);
    expect(await metric('va_query_section_cache_misses_total')).toBeGreaterThan(0);
    expect(await metric('va_query_section_cache_bytes')).toBeGreaterThan(0);
  });

  it('sums a month of cached days after one check of the month, until a day or the month changes', async () => {
    // Everything sealed: the first queries record each month's days, the next ones check the month alone.
    // Twice: a seal left in progress is finished first, and the delta written beside it sealed next.
    const sealAll = async () => {
      for (let n = 0; n < 2; n++) for (const b of await buckets()) await sealNow(h.redis, b, sealOptions());
    };
    const monthHits = () => metric('va_query_section_cache_month_hits_total');
    const ask = async (label: string) => {
      for (const qs of queries()) await expectOracle(events, qs, label);
    };
    await sealAll();
    await ask('recorded');
    const before = await monthHits();
    await ask('recorded, used');
    expect(await monthHits()).toBeGreaterThan(before);
    // A late event in a day of a sealed month: its month has a delta again, the days are read one by one.
    const day = Math.floor((NOW_HOUR - 20 * 24) / 24);
    await write([eventAt(day * 24 + 5), eventAt(day * 24 + 6)]);
    await ask('late event');
    // The day sealed, its month not yet; then the month too (a new version: recorded anew).
    const space = { prefix: h.config.keyPrefix, generation: 1 };
    await sealNow(h.redis, { space, apiId: API, res: 'd', index: day }, sealOptions());
    await ask('day sealed');
    await sealAll();
    await ask('month sealed');
    const settled = await monthHits();
    await ask('month sealed, used');
    expect(await monthHits()).toBeGreaterThan(settled);
    // A late event, then its month sealed before its day: the month has no delta, the day has one,
    // so the days are not recorded (read twice: the second read would use a record).
    await write([eventAt(day * 24 + 7), eventAt(day * 24 + 9)]);
    await sealNow(h.redis, { space, apiId: API, res: 'm', index: monthOfDay(day) }, sealOptions());
    await ask('month sealed, its day not');
    await ask('month sealed, its day not, again');
  });
});

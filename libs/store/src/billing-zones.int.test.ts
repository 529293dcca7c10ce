// Billing zones' edges (libs/core zone-edges.ts) through the real write path against a real Redis (and the
// cluster project): an API declaring Asia/Kolkata and America/New_York gets, for every local midnight of the
// last ten days, an edge bucket whose t cube (totals per outcome) and k cube equal the raw events of the edge's
// window, counted straight from the events, before and after sealing; edge buckets have a dirty entry and no
// index; an API without zones writes none. Events are counted as the ingest worker counts them (TupleCounter,
// EdgeFinder per zone, expand, applyApiBatches in a few batches, one of them staged in chunks).
import { describe, expect, it } from 'vitest';
import {
  closedBoundAt,
  DAY_MS,
  dayOf,
  EdgeFinder,
  edgesOfUtcDay,
  expiresAt,
  hourOf,
  lastHourOf,
  type ZoneEdge,
  type ZoneNumber,
} from '@va/core';
import { expand, TupleCounter } from './aggregate';
import { applyApiBatches } from './apply';
import { billingZoneSince, billingZonesOf, declareBillingZone } from './billing-zones';
import { DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys } from './keys';
import { sealApi } from './seal';
import { dumpApiCounts, emptyCounts, type Counts } from './testing/cube-dump';
import { fileRedis } from './testing/file-redis';
import { TEST_RETENTION } from './testing/ingest-events';

const db = fileRedis('store-billing-zones');
const { space } = db;
const retention = TEST_RETENTION;
const ZONES = ['Asia/Kolkata', 'America/New_York'];
const KEYS = ['k0', 'k1', 'k2', 'k3'];

interface RawEvent {
  time: number;
  key: string;
  identity: string | undefined;
  tags: string;
  o: number;
}

/** A deterministic generator (no flaky data): ~10 days of events up to a minute before now. */
function eventsUntil(now: number, count: number): RawEvent[] {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => ({
    time: now - 60_000 - Math.floor(next() * 10 * DAY_MS),
    key: KEYS[Math.floor(next() * KEYS.length)]!,
    identity: next() < 0.3 ? undefined : `id${Math.floor(next() * 5)}\nx`,
    tags: next() < 0.5 ? '' : 'a,b',
    o: Math.floor(next() * 9),
  }));
}

/** Writes the events in batches as the worker does; `finders` empty: an API without zones. */
async function write(apiId: string, events: RawEvent[], now: number, finders: EdgeFinder[]): Promise<void> {
  const dicts = new DictionaryWriter(db.redis, space);
  const missing = emptyMissing();
  for (const e of events) {
    missing.k.add(e.key);
    missing.s.add(e.tags);
    if (e.identity) missing.i.add(e.identity);
  }
  await dicts.assign(new Map([[apiId, missing]]));
  const codes = dicts.codesOf(apiId);
  const batches = 4;
  for (let b = 0; b < batches; b++) {
    const counter = new TupleCounter();
    for (const e of events.filter((_, n) => n % batches === b)) {
      const [k, i, s] = [
        codes.k.get(e.key)!,
        e.identity ? codes.i.get(e.identity)! : -1,
        codes.s.get(e.tags)!,
      ];
      // As the worker counts (ingest classify.ts countEvent): event by event only in the edges that cut
      // its hour; expand adds the hours an edge holds whole.
      counter.add(hourOf(e.time), k, i, s, e.o);
      for (const finder of finders)
        for (const edge of finder.cut(e.time)) counter.addEdge(edge.res, edge.index, k, i, s, e.o);
      counter.countedInZones(finders);
    }
    const increments = expand(counter, { now, retention, cmp: null });
    const cas = { offsetField: 'bz/0', expectedOff: b === 0 ? null : b - 1, newOff: b, expectedCmp: null };
    // One batch through applyStagedChunk too (a bound of 300 writes per call).
    const options = b === 2 ? { maxWritesPerCall: 300 } : {};
    expect(await applyApiBatches(db.redis, space, [{ apiId, increments, cas }], options)).toEqual([
      { status: 'ok' },
    ]);
  }
}

/** Every edge of the zones over the events' days, with the raw events of its window. */
function expectedEdges(events: RawEvent[], now: number) {
  const out: { edge: ZoneEdge; total: Counts; byKey: Map<string, Counts> }[] = [];
  ZONES.forEach((zone, z) => {
    for (let d = dayOf(now) - 11; d <= dayOf(now); d++) {
      for (const edge of edgesOfUtcDay(zone, (z + 1) as ZoneNumber, d)) {
        const inside = events.filter((e) => e.time >= edge.from && e.time < edge.to);
        const total = emptyCounts();
        const byKey = new Map<string, Counts>();
        for (const e of inside) {
          total[e.o]!++;
          if (!byKey.has(e.key)) byKey.set(e.key, emptyCounts());
          byKey.get(e.key)![e.o]!++;
        }
        out.push({ edge, total, byKey });
      }
    }
  });
  return out;
}

async function expectEdgesCount(apiId: string, expected: ReturnType<typeof expectedEdges>): Promise<void> {
  for (const { edge, total, byKey } of expected) {
    const { perBucket } = await dumpApiCounts(db.redis, space, apiId, edge.res, [edge.index]);
    const got = perBucket.get(edge.index)!;
    expect([edge.res, edge.index, got.total]).toEqual([edge.res, edge.index, total]);
    expect(got.byKey).toEqual(byKey);
  }
}

describe('billing zones: edges through the write path', () => {
  const now = Date.now();
  const events = eventsUntil(now, 3000);

  it('counts each edge exactly, before and after sealing; edges are dirty, unindexed, expiring', async () => {
    const apiId = 'bz_api';
    for (const zone of ZONES) await declareBillingZone(db.redis, db.prefix, apiId, zone);
    const zones = await billingZonesOf(db.redis, db.prefix, apiId);
    expect(zones).toEqual(ZONES);
    const finders = zones.map((zone, n) => new EdgeFinder(zone, (n + 1) as ZoneNumber));
    await write(apiId, events, now, finders);

    const expected = expectedEdges(events, now);
    expect(expected.length).toBeGreaterThanOrEqual(20);
    expect(expected.filter((e) => e.total.some((n) => n > 0)).length).toBeGreaterThanOrEqual(18);
    await expectEdgesCount(apiId, expected);

    const keys = apiKeys(space, apiId);
    const dirty = new Map(
      (await db.redis.zrange(keys.dirty, 0, -1, 'WITHSCORES')).flatMap((v, n, all) =>
        n % 2 === 0 ? [[v, Number(all[n + 1])]] : [],
      ),
    );
    for (const { edge, total } of expected) {
      if (!total.some((n) => n > 0)) continue;
      expect(dirty.get(`${edge.res}:${edge.index}`)).toBe(lastHourOf(edge.res, edge.index));
      expect(await db.redis.pexpiretime(keys.cube(edge.res, edge.index, 't'))).toBe(
        expiresAt(edge.res, edge.index, retention),
      );
      expect(await db.redis.exists(`${keys.base}:idx:${edge.res}`)).toBe(0);
    }
    // The since: both zones counted from the API's first batch, so from 0; kept as long as the API's other keys.
    expect(await billingZoneSince(db.redis, space, apiId)).toEqual(
      new Map([
        [1, 0],
        [2, 0],
      ]),
    );
    expect(await db.redis.pexpiretime(keys.billingZoneSince)).toBe(await db.redis.pexpiretime(keys.offsets));

    const closedBound = closedBoundAt(now, 0);
    await sealApi(db.redis, space, apiId, closedBound, { now, retention });
    const left = await db.redis.zrange(keys.dirty, 0, -1, 'WITHSCORES');
    for (let n = 0; n < left.length; n += 2) {
      if (left[n]!.startsWith('z')) expect(Number(left[n + 1])).toBeGreaterThan(closedBound);
    }
    const sealedEdge = expected.find(
      (e) => e.total.some((n) => n > 0) && lastHourOf(e.edge.res, e.edge.index) <= closedBound,
    )!;
    expect(await db.redis.exists(keys.section(sealedEdge.edge.res, sealedEdge.edge.index, 't'))).toBe(1);
    expect(await db.redis.exists(keys.section(sealedEdge.edge.res, sealedEdge.edge.index, 'x'))).toBe(1);
    await expectEdgesCount(apiId, expected);
  }, 120_000);

  it('an API without zones writes no edge key', async () => {
    const apiId = 'bz_none';
    await write(apiId, events.slice(0, 500), now, []);
    const keys = apiKeys(space, apiId);
    const dirty = await db.redis.zrange(keys.dirty, 0, -1);
    expect(dirty.length).toBeGreaterThan(0);
    expect(dirty.filter((m) => m.startsWith('z'))).toEqual([]);
    for (const { edge } of expectedEdges([], now)) {
      expect(
        await db.redis.exists(keys.parts(edge.res, edge.index), keys.cube(edge.res, edge.index, 't')),
      ).toBe(0);
    }
    expect(await db.redis.exists(keys.billingZoneSince)).toBe(0);
    expect(await billingZoneSince(db.redis, space, apiId)).toEqual(new Map());
  });
});

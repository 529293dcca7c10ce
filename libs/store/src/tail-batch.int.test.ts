// One batch of the long tail (#41) against a real Redis: a hundred small APIs, a few events each spread
// over closed hours, compacted and not, applied in one pipeline as the worker applies a partition's batch.
// Every bucket of every resolution must hold the events' counts; a closed bucket's cube becomes a section
// part when the hours written to it reach PARTS_MIN_ROWS rows together, however few each hour holds.
import { describe, expect, it } from 'vitest';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { HOUR_MS, dayOfHour, hourOf } from '@va/core';
import { diffCounts, dumpApiCounts, emptyDecodedCounts, expectedCounts } from './testing';
import { expand, PARTS_MIN_ROWS, TupleCounter } from './aggregate';
import { applyApiBatches, type ApiApply } from './apply';
import { DictionaryWriter, emptyMissing } from './dictionary';
import { apiKeys, partsListSuffix, type Resolution } from './keys';
import { fileRedis } from './testing/file-redis';
import { TEST_RETENTION as retention } from './testing/ingest-events';

const db = fileRedis('store-tail-batch');
const { space } = db;

const now = Date.now();
const nowHour = hourOf(now);
const cmp = nowHour - 2;

/** A deterministic sequence in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function event(apiId: string, hour: number, key: number, n: number, pick: () => number): VerificationEvent {
  const tags = ['a', 'b', 'c', 'd', 'e'].filter(() => pick() < 0.3);
  return {
    requestId: `${apiId}-${n}`,
    time: hour * HOUR_MS + n,
    workspaceId: 'ws_tail',
    apiId,
    keyId: `key_${key}`,
    outcome: OUTCOMES[Math.floor(pick() * OUTCOMES.length)]!,
    tags,
    ...(key % 3 !== 0 && { identity: { id: `id_${key}`, externalId: `user-${key}` } }),
  };
}

/** Small APIs: 1-40 events each over the last 20 days (a few in the open hours), 5-34 keys. */
function tailEvents(apis: number): VerificationEvent[] {
  const pick = random(41);
  const out: VerificationEvent[] = [];
  for (let a = 0; a < apis; a++) {
    const apiId = `tail_${a}`;
    const events = 1 + ((a * 7) % 40);
    for (let n = 0; n < events; n++) {
      const hour =
        pick() < 0.1 ? nowHour - Math.floor(pick() * 2) : nowHour - 3 - Math.floor(pick() * 20 * 24);
      out.push(event(apiId, hour, Math.floor(pick() * (5 + (a % 30))), n, pick));
    }
  }
  return out;
}

/** Three hours of one day ten days ago, six keys each: no hour reaches PARTS_MIN_ROWS rows, their day does. */
function spreadEvents(): VerificationEvent[] {
  const pick = random(7);
  const day = dayOfHour(nowHour - 240);
  return [0, 1, 2].flatMap((h) =>
    Array.from({ length: 6 }, (_, k) => ({
      ...event('tail_spread', day * 24 + h, h * 6 + k, h * 6 + k, pick),
      outcome: 'VALID' as const,
    })),
  );
}

/** The worker's pre-aggregation of each API's events, with codes from the API's dictionaries. */
async function appliesOf(events: VerificationEvent[], compacted: (apiId: string) => boolean) {
  const byApi = new Map<string, VerificationEvent[]>();
  for (const e of events) byApi.set(e.apiId, [...(byApi.get(e.apiId) ?? []), e]);
  const missing = new Map([...byApi.keys()].map((apiId) => [apiId, emptyMissing()]));
  const setOf = (e: VerificationEvent) => [...(e.tags ?? [])].sort().join(',');
  const identityOf = (e: VerificationEvent) => `${e.identity!.id}\n${e.identity!.externalId}`;
  for (const e of events) {
    const m = missing.get(e.apiId)!;
    m.k.add(e.keyId);
    m.s.add(setOf(e));
    if (e.identity) m.i.add(identityOf(e));
  }
  const dicts = new DictionaryWriter(db.redis, space);
  await dicts.assign(missing);
  const applies: ApiApply[] = [];
  for (const [apiId, apiEvents] of byApi) {
    const codes = dicts.codesOf(apiId);
    const counter = new TupleCounter();
    for (const e of apiEvents) {
      const i = e.identity ? codes.i.get(identityOf(e))! : -1;
      const o = OUTCOMES.indexOf(e.outcome);
      counter.add(hourOf(e.time), codes.k.get(e.keyId)!, i, codes.s.get(setOf(e))!, o);
    }
    const expectedCmp = compacted(apiId) ? cmp : null;
    if (expectedCmp !== null) await db.redis.set(apiKeys(space, apiId).compactedThrough, String(cmp));
    applies.push({
      apiId,
      increments: expand(counter, { now, retention, cmp: expectedCmp }),
      cas: { offsetField: 'tail/0', expectedOff: null, newOff: 100, expectedCmp },
    });
  }
  return applies;
}

describe('a batch of the long tail', () => {
  it('counts every event of a hundred small APIs in every bucket, parts where a bucket reaches the rows', async () => {
    const events = [...tailEvents(100), ...spreadEvents()];
    const compacted = (apiId: string) => apiId === 'tail_spread' || Number(apiId.split('_')[1]) % 2 === 0;
    const applies = await appliesOf(events, compacted);
    const results = await applyApiBatches(db.redis, space, applies);
    expect(results.every((r) => r.status === 'ok')).toBe(true);

    // Hours hold every event; days and months those of the hours compacted already (through cmp).
    const inRollups = (e: VerificationEvent) => compacted(e.apiId) && hourOf(e.time) <= cmp;
    const problems: string[] = [];
    for (const [r, filter] of [
      ['h', () => true],
      ['d', inRollups],
      ['m', inRollups],
    ] as [Resolution, (e: VerificationEvent) => boolean][]) {
      const expected = expectedCounts(events, filter);
      for (const { apiId } of applies) {
        const { sum } = await dumpApiCounts(db.redis, space, apiId, r);
        problems.push(...diffCounts(`${apiId} ${r}`, expected.get(apiId) ?? emptyDecodedCounts(), sum));
      }
    }
    expect(problems).toEqual([]);
    expect(events.length).toBeGreaterThan(2000);

    // tail_spread: its day's k and f cubes are parts (18 rows), its hours (6 rows each) hash fields only.
    const keys = apiKeys(space, 'tail_spread');
    const day = dayOfHour(nowHour - 240);
    const partsOf = async (r: Resolution, t: number) =>
      (await db.redis.smembers(keys.parts(r, t))).filter((s) => s.startsWith('L:')).sort();
    expect(await partsOf('d', day)).toEqual([partsListSuffix('f'), partsListSuffix('k')]);
    expect(await db.redis.llen(keys.cube('d', day, partsListSuffix('k')))).toBe(1);
    for (let h = 0; h < 3; h++) expect(await partsOf('h', day * 24 + h)).toEqual([]);
    expect(PARTS_MIN_ROWS).toBeGreaterThan(6);
    expect(PARTS_MIN_ROWS).toBeLessThanOrEqual(18);
  });
});

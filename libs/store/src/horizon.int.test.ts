// Issue #17.1: an hour that reaches its hour horizon before it is compacted. A full rebuild (or
// a new API whose first events are old history) writes into a generation whose compaction point
// lags far behind: its replayed hours sit in hour buckets until the compactor merges them. If an
// hour's retention ends meanwhile, its counts must still reach the day and month rollups, and no
// answer may go down when the new generation replaces the live one.
//
// Real Redis, real write path (assignCodes + expand + applyApiBatch), real compaction and read
// path (planReads + readCounts). The hour retention is set so that one replayed hour's horizon
// passes between the replay and the compaction, as it does in a long rebuild.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOME_COUNT } from '@va/contracts';
import {
  DAY_MS,
  HOUR_MS,
  dayOfHour,
  dayStart,
  horizonsAt,
  hourOf,
  monthOfHour,
  planReads,
  retentionModel,
  type Retention,
} from '@va/core';
import { testEnv, type TestEnv } from '@va/testkit/support';
import { connectTarget, cubeQuery, deletePrefix, dumpApiCounts } from './testing';
import { TupleCounter } from './aggregate';
import { applyCounted } from './testing/apply';
import { compactApi, readCompactedThrough } from './compaction';
import { DictionaryWriter, emptyMissing } from './dictionary';
import type { KeySpace } from './keys';
import { readCounts, type CubeQuery } from './read';
import { type RedisClient } from '@va/store';

let t: TestEnv;
let redis: RedisClient;

beforeAll(async () => {
  t = await testEnv('horizon');
  redis = connectTarget(t.redis);
});

afterAll(async () => {
  await deletePrefix(t.redis, t.keyPrefix);
  redis.disconnect();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const API = 'api_horizon';
const TOTALS: CubeQuery = cubeQuery({ cube: 't' });

interface TestEvent {
  hour: number;
  key: string;
  outcome: number;
}

/** Writes one batch the way the ingest worker does: codes, pre-aggregation, both CAS. */
async function ingest(
  space: KeySpace,
  events: readonly TestEvent[],
  now: number,
  retention: Retention,
  offset: number,
): Promise<void> {
  const dicts = new DictionaryWriter(redis, space);
  const missing = emptyMissing();
  for (const e of events) missing.k.add(e.key);
  missing.s.add('');
  await dicts.assign(new Map([[API, missing]]));
  const codes = dicts.codesOf(API);
  const counter = new TupleCounter();
  for (const e of events) counter.add(e.hour, codes.k.get(e.key)!, -1, codes.s.get('')!, e.outcome);
  expect(await applyCounted(redis, space, API, counter, { now, retention, offset })).toEqual({
    status: 'ok',
  });
}

/** Total per day slice through the query read path, planned with the API's current cmp. */
async function dayTotals(
  space: KeySpace,
  startHour: number,
  endHour: number,
  now: number,
  retention: Retention,
): Promise<Map<number, number>> {
  const cmp = await readCompactedThrough(redis, space, API);
  const plan = planReads({
    startHour,
    endHour,
    granularity: 'day',
    compactedThrough: cmp,
    horizons: horizonsAt(now, retention),
  });
  const read = await readCounts(redis, space, API, TOTALS, plan.reads, cmp);
  if (!read.ok) throw new Error('compaction moved during the read');
  const out = new Map<number, number>();
  for (const [slice, groups] of read.counts.slices) {
    let n = 0;
    for (const counts of groups.values()) n += counts.reduce((a, b) => a + b, 0);
    if (n !== 0) out.set(slice!, n);
  }
  return out;
}

/** What docs/api.md#retention says a groupBy=day query over the range answers (libs/core oracle model). */
function oracleDayTotals(
  events: readonly TestEvent[],
  startHour: number,
  endHour: number,
  now: number,
  retention: Retention,
): Map<number, number> {
  const model = retentionModel(now, retention, { startHour, endHour });
  const out = new Map<number, number>();
  for (const e of events) {
    const answer = model.answer(e.hour);
    if (!answer) continue;
    const slice = dayStart(dayOfHour(answer.hour));
    out.set(slice, (out.get(slice) ?? 0) + 1);
  }
  return out;
}

describe('an hour whose retention ends before it is compacted', () => {
  it('still reaches its day and month rollups, and no total goes down at the switch', async () => {
    const start = Date.now();
    // Two closed hours; the first one's hour retention ends 3 s from now, the second an hour later.
    const first = hourOf(start) - 2;
    const expiresAt = start + 3_000;
    const retention: Retention = {
      hourMs: expiresAt - (first + 1) * HOUR_MS,
      dayMs: 400 * DAY_MS,
      monthMs: 5 * 366 * DAY_MS,
    };
    const events: TestEvent[] = [];
    for (let n = 0; n < 60; n++) {
      events.push({ hour: first + (n % 2), key: `key_${n % 7}`, outcome: n % OUTCOME_COUNT });
    }
    const range = [first - 48, hourOf(start)] as const;

    // The live generation: compacted through the last closed hour before the events arrive,
    // so ingest writes them to their hour buckets and their rollups (docs/rollups.md).
    const live: KeySpace = { prefix: t.keyPrefix, generation: 1 };
    await compactApi(redis, live, API, { closedBound: hourOf(start) - 1, retention, now: start });
    await ingest(live, events, start, retention, 0);
    const before = await dayTotals(live, ...range, start, retention);
    expect(before).toEqual(oracleDayTotals(events, ...range, start, retention));

    // The rebuild's generation: the same events replayed, compacted only after the replay,
    // and by then the first hour is past its hour horizon.
    const rebuilt: KeySpace = { prefix: t.keyPrefix, generation: 2 };
    await ingest(rebuilt, events, start, retention, 0);
    while (Date.now() <= expiresAt + 100) await sleep(100);
    const now = Date.now();
    await compactApi(redis, rebuilt, API, { closedBound: hourOf(now) - 1, retention, now });

    // Every event is in its day and month rollup, once.
    const days = await dumpApiCounts(redis, rebuilt, API, 'd');
    const months = await dumpApiCounts(redis, rebuilt, API, 'm');
    const perDay = new Map<number, number>();
    const perMonth = new Map<number, number>();
    for (const e of events) {
      perDay.set(dayOfHour(e.hour), (perDay.get(dayOfHour(e.hour)) ?? 0) + 1);
      perMonth.set(monthOfHour(e.hour), (perMonth.get(monthOfHour(e.hour)) ?? 0) + 1);
    }
    const sum = (c: { total: number[] }) => c.total.reduce((a, b) => a + b, 0);
    expect(new Map([...days.perBucket].map(([d, c]) => [d, sum(c)]))).toEqual(perDay);
    expect(new Map([...months.perBucket].map(([m, c]) => [m, sum(c)]))).toEqual(perMonth);

    // After the switch, queries read the rebuilt generation: the oracle's answer, and no day
    // total lower than the live generation answered before.
    const after = await dayTotals(rebuilt, ...range, now, retention);
    expect(after).toEqual(oracleDayTotals(events, ...range, now, retention));
    for (const [day, n] of before) expect(after.get(day) ?? 0).toBeGreaterThanOrEqual(n);
  });
});

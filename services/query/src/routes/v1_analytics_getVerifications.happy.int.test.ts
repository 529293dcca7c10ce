/**
 * GET /v1/analytics.getVerifications answers: the users' questions as readable scenarios (asked
 * through the typed client, @va/client, over HTTP; raw query strings where the comma form of lists
 * is the point), and every case of the contract's vectors (raw HTTP). Events are written by the
 * ingest worker's batch processor (production validation and write script, no Kafka).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsClient, GetVerificationsParams } from '@va/client';
import type { Datapoint, VerificationEvent } from '@va/contracts';
import { DAY_MS, HOUR_MS as HOUR, oracle, parseQuery } from '@va/core';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { LONG_RETENTION } from '../testing/fixtures';
import { loadVectors } from '@va/testkit';

const PATH = '/v1/analytics.getVerifications';
const ZERO = {
  valid: 0,
  notFound: 0,
  forbidden: 0,
  usageExceeded: 0,
  rateLimited: 0,
  unauthorized: 0,
  disabled: 0,
  insufficientPermissions: 0,
  expired: 0,
  total: 0,
};

describe('user scenarios', () => {
  // Now: 2026-03-18 10:30 UTC. The billing period is the calendar month.
  const now = Date.UTC(2026, 2, 18, 10, 30);
  const thisHour = Math.floor(now / HOUR) * HOUR;
  let h: QueryHarness;
  let key: string;
  let client: AnalyticsClient;
  let n = 0;
  const event = (
    time: number,
    keyId: string,
    outcome: VerificationEvent['outcome'],
    extra: Partial<VerificationEvent> = {},
  ) =>
    ({
      requestId: `r${n++}`,
      time,
      workspaceId: 'ws_1',
      apiId: 'api_shop',
      keyId,
      outcome,
      ...extra,
    }) satisfies VerificationEvent;
  const alice = { id: 'id_alice', externalId: 'alice@example.com' };
  const bob = { id: 'id_bob', externalId: 'bob@example.com' };
  const carol = { id: 'id_carol', externalId: 'org:carol' };

  const query = async (params: Omit<GetVerificationsParams, 'apiId'>) => {
    const result = await client.getVerifications({ apiId: 'api_shop', ...params });
    expect(result.precision).toBe('hour');
    return result.datapoints;
  };
  const rawQuery = async (qs: string) => {
    const response = await h.get(`${PATH}?apiId=api_shop&${qs}`, key);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<Datapoint[]>();
  };

  beforeAll(async () => {
    h = await queryHarness('query scenarios', { now, env: LONG_RETENTION });
    key = await h.rootKey();
    client = await h.client(key);
    await h.seed([
      // alice: key_a1 and key_a2, this month and last month
      event(thisHour - 2 * HOUR + 5, 'key_a1', 'VALID', { identity: alice, tags: ['plan:pro', 'eu'] }),
      event(thisHour - 2 * HOUR + 9, 'key_a1', 'RATE_LIMITED', { identity: alice, tags: ['eu', 'plan:pro'] }),
      event(thisHour - 1 * HOUR, 'key_a2', 'VALID', { identity: alice, tags: ['plan:pro'] }),
      event(thisHour, 'key_a1', 'USAGE_EXCEEDED', { identity: alice }),
      event(thisHour - 3 * DAY_MS, 'key_a1', 'VALID', { identity: alice, tags: ['eu'] }),
      event(Date.UTC(2026, 1, 27, 12), 'key_a1', 'VALID', { identity: alice }),
      // bob: one key, busy 10 days ago
      ...Array.from({ length: 5 }, (_, i) =>
        event(thisHour - 10 * DAY_MS + i, 'key_b1', 'VALID', { identity: bob, tags: ['plan:free'] }),
      ),
      event(thisHour - 25 * HOUR, 'key_b1', 'EXPIRED', { identity: bob }),
      // carol: 40 days ago (outside "the last 30 days")
      event(thisHour - 40 * DAY_MS, 'key_c1', 'VALID', { identity: carol }),
      // anonymous traffic
      event(thisHour - 5 * HOUR, 'key_anon', 'NOT_FOUND', { tags: ['eu'] }),
    ]);
  });
  afterAll(() => h.close());

  it("a user's usage over the last 24 hours, by hour", async () => {
    const rows = await query({
      externalId: 'alice@example.com',
      groupBy: ['hour'],
      start: now - DAY_MS,
      end: now,
    });
    expect(rows).toHaveLength(25);
    expect(rows[0]!.time).toBe(thisHour - 24 * HOUR);
    expect(rows.at(-1)!.time).toBe(thisHour);
    expect(rows.at(-3)).toEqual({ ...ZERO, time: thisHour - 2 * HOUR, valid: 1, rateLimited: 1, total: 2 });
    expect(rows.at(-2)).toEqual({ ...ZERO, time: thisHour - HOUR, valid: 1, total: 1 });
    expect(rows.at(-1)).toEqual({ ...ZERO, time: thisHour, usageExceeded: 1, total: 1 });
    expect(rows.slice(0, -3).every((r) => r.total === 0)).toBe(true);
  });

  it('per-key daily breakdown of one user this month', async () => {
    const monthStart = Date.UTC(2026, 2, 1);
    const rows = await query({ externalId: 'alice@example.com', groupBy: ['key', 'day'], start: monthStart });
    const days = 18;
    expect(rows).toHaveLength(2 * days); // key_a1 and key_a2, every day from the 1st to today
    const day = (d: number) => Date.UTC(2026, 2, d);
    const a1 = rows.filter((r) => r.keyId === 'key_a1' && r.total > 0);
    const a2 = rows.filter((r) => r.keyId === 'key_a2' && r.total > 0);
    expect(a1).toEqual([
      { ...ZERO, time: day(15), keyId: 'key_a1', valid: 1, total: 1 },
      { ...ZERO, time: day(18), keyId: 'key_a1', valid: 1, rateLimited: 1, usageExceeded: 1, total: 3 },
    ]);
    expect(a2).toEqual([{ ...ZERO, time: day(18), keyId: 'key_a2', valid: 1, total: 1 }]);
    expect(rows.map((r) => r.time)).toEqual(
      Array.from({ length: days }, (_, i) => [day(i + 1), day(i + 1)]).flat(), // time first, then keyId
    );
  });

  it('monthly invoice total per identity', async () => {
    const rows = await query({
      groupBy: ['identity', 'month'],
      start: Date.UTC(2026, 1, 1),
      end: Date.UTC(2026, 1, 28, 23),
    });
    expect(rows).toEqual([
      { ...ZERO, time: Date.UTC(2026, 1, 1), identity: alice, valid: 1, total: 1 },
      { ...ZERO, time: Date.UTC(2026, 1, 1), identity: carol, valid: 1, total: 1 },
    ]);
  });

  it('the quota gauge for the current billing period', async () => {
    const [gauge] = await query({ externalId: 'alice@example.com', start: Date.UTC(2026, 2, 1) });
    expect(gauge).toEqual({ ...ZERO, valid: 3, rateLimited: 1, usageExceeded: 1, total: 5 });
  });

  it('top 10 identities of the last 30 days', async () => {
    const rows = await query({
      groupBy: ['identity'],
      start: now - 30 * DAY_MS,
      orderBy: 'total',
      order: 'desc',
      limit: 10,
    });
    // carol's only event is 40 days old; alice and bob tie at 6: ties fall back to identity id.
    expect(rows.map((r) => [r.identity!.id, r.total])).toEqual([
      ['id_alice', 6],
      ['id_bob', 6],
    ]);
  });

  it('filter by one tag and by several (all must be present)', async () => {
    const start = now - 30 * DAY_MS;
    expect((await query({ tag: ['eu'], start }))[0]!.total).toBe(4);
    expect((await query({ tag: ['eu', 'plan:pro'], start }))[0]!.total).toBe(2);
    expect((await rawQuery(`tag=eu,plan:pro&start=${start}`))[0]!.total).toBe(2);
    expect((await query({ tag: ['never-seen'], start }))[0]).toEqual(ZERO);
  });

  it('filter by one key and by several', async () => {
    expect((await query({ keyId: ['key_b1'] }))[0]!.total).toBe(6);
    expect((await query({ keyId: ['key_b1', 'key_anon'] }))[0]!.total).toBe(7);
    expect((await rawQuery('keyId=key_b1,key_anon,key_unknown'))[0]!.total).toBe(7);
    expect((await query({ keyId: ['key_unknown'] }))[0]).toEqual(ZERO);
  });

  it('group by tags (sets) and by tag (one row per tag)', async () => {
    const start = now - 30 * DAY_MS;
    expect((await query({ groupBy: ['tags'], start })).map((r) => [r.tags, r.total])).toEqual([
      [[], 3],
      [['eu'], 2],
      [['eu', 'plan:pro'], 2],
      [['plan:free'], 5],
      [['plan:pro'], 1],
    ]);
    expect((await query({ groupBy: ['tag'], start })).map((r) => [r.tag, r.total])).toEqual([
      ['eu', 4],
      ['plan:free', 5],
      ['plan:pro', 3],
    ]);
  });

  it('no groupBy and no data in range: one all-zero row; by hour without start: [] ', async () => {
    expect(await query({ start: now + HOUR, end: now + 2 * HOUR })).toEqual([ZERO]);
    expect(await query({ keyId: ['key_unknown'], groupBy: ['hour'] })).toEqual([]);
  });
});

describe('contract vectors', () => {
  const vectors = loadVectors();
  let h: QueryHarness;
  let key: string;

  beforeAll(async () => {
    h = await queryHarness('query vectors', { now: vectors.now, env: LONG_RETENTION });
    key = await h.rootKey();
    for (const { apiId, workspaceId } of vectors.registeredApis) await h.registerApi(apiId, workspaceId);
    await h.seed(vectors.events);
  });
  afterAll(() => h.close());

  it.each(vectors.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const response = await h.get(`${PATH}?${c.query}`, key);
    expect(response.statusCode, response.body).toBe(c.status);
    expect(response.json()).toEqual(c.body);
    expect(response.headers['x-precision']).toBe(c.headers?.['x-precision']);
  });
});

describe('past the hour retention (default retention: hours 35 days)', () => {
  const now = Date.now();
  const oldDay = Math.floor((now - 40 * DAY_MS) / DAY_MS) * DAY_MS; // a day whose hours are gone
  let h: QueryHarness;
  let key: string;

  beforeAll(async () => {
    h = await queryHarness('query precision', { now });
    key = await h.rootKey();
    await h.seed(events);
  });
  afterAll(() => h.close());
  const events: VerificationEvent[] = [2, 10, 20].map((hour, n) => ({
    requestId: `p${n}`,
    time: oldDay + hour * HOUR,
    workspaceId: 'ws_1',
    apiId: 'api_old',
    keyId: 'key_1',
    outcome: 'VALID' as const,
  }));

  // Without start the range has no lower bound: the day holding the first data (from 02:00 on) is
  // whole, not widened past the range; its counts sit at the day's start (as the oracle answers).
  it.each(['', '&groupBy=hour', '&groupBy=day'])(
    'answers without start as the oracle (%s)',
    async (groupBy) => {
      const qs = `apiId=api_old${groupBy}`;
      const parsed = parseQuery(new URLSearchParams(qs), { now, maxRows: 100_000 });
      if (!parsed.ok) throw new Error(qs);
      const expected = oracle(events, parsed.query, { now, maxRows: 100_000, retention: h.config.retention });
      if (!expected.ok) throw new Error(qs);
      const response = await h.get(`${PATH}?${qs}`, key);
      expect(response.json()).toEqual(expected.rows);
      expect(response.headers['x-precision']).toBe(
        expected.precision === 'hour' ? undefined : expected.precision,
      );
    },
  );

  it('answers whole days exactly, without X-Precision', async () => {
    const response = await h.get(
      `${PATH}?apiId=api_old&groupBy=day&start=${oldDay}&end=${oldDay + DAY_MS - 1}`,
      key,
    );
    expect(response.json()).toEqual([{ ...ZERO, time: oldDay, valid: 3, total: 3 }]);
    expect(response.headers['x-precision']).toBeUndefined();
  });

  it('answers part of such a day from its day rollup and says so with X-Precision: day', async () => {
    const response = await h.get(
      `${PATH}?apiId=api_old&start=${oldDay + 12 * HOUR}&end=${oldDay + 13 * HOUR}`,
      key,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-precision']).toBe('day');
    expect(response.json()).toEqual([{ ...ZERO, valid: 3, total: 3 }]); // the whole day, never silently partial
  });
});

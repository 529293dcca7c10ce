// Billing zones through the service (docs/api.md#billing-zones): an API declares Asia/Kolkata and
// America/New_York before its first event; 60 days of events, one every 20 minutes, are written through the
// worker's path at the real clock (Redis expires the hours past the 35-day hour retention), compacted and
// sealed. Local days and months of the declared zones, far past the hour retention and the minute data, are
// then exact and carry no X-Precision (the oracle over every event is the judge); the same questions in an
// undeclared zone with a midnight inside a UTC hour (Asia/Kathmandu) answer as any zone, with X-Precision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { DAY_MS, HOUR_MS, hourOf, oracle, parseQuery } from '@va/core';
import { compactApi, declareBillingZone, sealApi } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { eventEvery20Minutes } from '../testing/fixtures';
import { scaled } from '@va/testkit/time';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_billing';

let h: QueryHarness;
let key: string;
let events: VerificationEvent[];

beforeAll(async () => {
  const now = Date.now();
  h = await queryHarness('billing-zones', { now });
  key = await h.rootKey();
  await h.registerApi(API);
  await declareBillingZone(h.redis, h.config.keyPrefix, API, 'Asia/Kolkata');
  await declareBillingZone(h.redis, h.config.keyPrefix, API, 'America/New_York');
  const first = Math.floor(now / DAY_MS) * DAY_MS - 60 * DAY_MS;
  events = eventEvery20Minutes(API, first, now).map((e, n) => ({ ...e, tags: n % 3 === 0 ? ['pro'] : [] }));
  await h.seed(events);
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const closedBound = hourOf(now) - 3;
  await compactApi(h.redis, space, API, { closedBound, retention: h.config.retention, now });
  await sealApi(h.redis, space, API, closedBound, { now, retention: h.config.retention });
}, scaled(180_000));
afterAll(async () => {
  await h?.close();
});

/** The service's answer, its X-Precision, and the oracle's answer over every event (no retention: exact). */
async function ask(qs: string) {
  const query = `apiId=${API}&${qs}`;
  const parsed = parseQuery(new URLSearchParams(query), { now: h.now, maxRows: 100_000 });
  if (!parsed.ok) throw new Error(`invalid query ${qs}`);
  const exact = oracle(events, parsed.query, { now: h.now, maxRows: 100_000 });
  if (!exact.ok) throw new Error(`oracle refused ${qs}`);
  const response = await h.get(`${PATH}?${query}`, key);
  expect(response.statusCode, response.body).toBe(200);
  return {
    rows: response.json() as { time: number; total: number }[],
    precision: response.headers['x-precision'],
    exact: exact.rows,
  };
}

/** A UTC midnight `days` ago. */
const utcMidnight = (days: number) => Math.floor(h.now / DAY_MS) * DAY_MS - days * DAY_MS;

describe('billing zones through the service', () => {
  it('Kolkata days 50 to 40 days back (past the hour retention and the minute data): exact, no X-Precision', async () => {
    for (const groups of ['', '&groupBy=tag', '&tag=pro']) {
      const qs = `groupBy=day${groups}&timeZone=Asia/Kolkata&start=${utcMidnight(50)}&end=${utcMidnight(40) - HOUR_MS}`;
      const { rows, precision, exact } = await ask(qs);
      expect([qs, precision]).toEqual([qs, undefined]);
      expect([qs, rows]).toEqual([qs, exact]);
    }
    // A whole Kolkata day holds 72 events (every 20 minutes), and the first row the 5.5 hours after the UTC midnight.
    const { rows } = await ask(
      `groupBy=day&timeZone=Asia/Kolkata&start=${utcMidnight(50)}&end=${utcMidnight(40) - HOUR_MS}`,
    );
    expect(rows.slice(1, -1).every((r) => r.total === 72)).toBe(true);
    expect(rows[0]!.total).toBe(56); // 00:00Z .. 18:30Z
  });

  it('New York months and days from their local midnight, and ranges that end now: exact', async () => {
    for (const qs of [
      `groupBy=month&timeZone=America/New_York&start=${utcMidnight(55)}`,
      `groupBy=day&timeZone=America/New_York&start=${utcMidnight(45)}`,
      `groupBy=day&timeZone=Asia/Kolkata&start=${utcMidnight(30)}`,
    ]) {
      const { rows, precision, exact } = await ask(qs);
      expect([qs, rows]).toEqual([qs, exact]);
      expect([qs, precision]).toEqual([qs, undefined]);
    }
  });

  it('an undeclared zone with midnights inside UTC hours answers as any zone: X-Precision', async () => {
    const qs = `groupBy=day&timeZone=Asia/Kathmandu&start=${utcMidnight(50)}&end=${utcMidnight(40) - HOUR_MS}`;
    const { precision } = await ask(qs);
    expect(precision).toBeDefined();
  });
});

// An API's default time zone (docs/api.md#time-zones) through the service: an API registered with
// America/New_York answers a query without timeZone in New York's local days (the oracle with that zone,
// the 25-hour November 1 included) and says so in X-Time-Zone; an explicit timeZone, UTC included, wins;
// after the default changes to Asia/Kolkata the same query answers Kolkata's days, exact to the UTC hour
// with X-Precision: hour, and a stream opened without timeZone follows the new default too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS, oracle, parseQuery } from '@va/core';
import { registerApi, setApiTimeZone } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { LONG_RETENTION, eventEvery20Minutes } from '../testing/fixtures';
import { scaled } from '@va/testkit/time';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_default_zone';
const NOW = Date.UTC(2026, 10, 20, 10, 30);
const FIRST = Date.UTC(2026, 9, 25);
const START = Date.parse('2026-10-28T04:00:00Z'); // local midnight of October 28 in New York

let h: QueryHarness;
let key: string;
const events: VerificationEvent[] = [];

beforeAll(async () => {
  h = await queryHarness('api-time-zone', { now: NOW, env: LONG_RETENTION });
  key = await h.rootKey();
  expect(
    await registerApi(h.redis, h.config.keyPrefix, API, 'ws_1', { timeZone: 'America/New_York' }),
  ).toEqual({ ok: true, created: true });
  events.push(...eventEvery20Minutes(API, FIRST, NOW));
  await h.seed(events);
}, scaled(120_000));
afterAll(async () => {
  h?.app.server.closeAllConnections();
  await h?.close();
});

/** Every event moved to the start of its UTC hour: what an answer exact to the hour counts. */
const floored = (list: VerificationEvent[]) =>
  list.map((e) => ({ ...e, time: Math.floor(e.time / HOUR_MS) * HOUR_MS }));

/** The oracle's rows of the query string `qs` (which names its zone), over the events (floored: to the hour). */
function expected(qs: string, toTheHour = false) {
  const parsed = parseQuery(new URLSearchParams(`apiId=${API}&${qs}`), { now: NOW, maxRows: 100_000 });
  if (!parsed.ok) throw new Error(`invalid query ${qs}`);
  const options = { now: NOW, maxRows: 100_000, retention: h.config.retention };
  const result = oracle(toTheHour ? floored(events) : events, parsed.query, options);
  if (!result.ok) throw new Error(`oracle refused ${qs}`);
  return result;
}

async function get(qs: string) {
  const response = await h.get(`${PATH}?apiId=${API}&${qs}`, key);
  expect(response.statusCode, response.body).toBe(200);
  return {
    rows: response.json() as { time: number; total: number }[],
    zone: response.headers['x-time-zone'],
    precision: response.headers['x-precision'],
  };
}

describe("an API's default time zone", () => {
  it('answers a query without timeZone in the zone the API was registered with', async () => {
    const days = await get(`groupBy=day&start=${START}`);
    const ny = expected(`groupBy=day&start=${START}&timeZone=America/New_York`);
    expect(days.rows).toEqual(ny.rows);
    expect(days.zone).toBe('America/New_York');
    expect(days.precision).toBeUndefined();
    // November 1 in New York has 25 hours: 75 events; a full UTC day 72.
    expect(days.rows.find((r) => r.time === Date.parse('2026-11-01T04:00:00Z'))?.total).toBe(75);
    expect((await get(`groupBy=month&groupBy=key&start=${START}`)).rows).toEqual(
      expected(`groupBy=month&groupBy=key&start=${START}&timeZone=America/New_York`).rows,
    );
  });

  it('an explicit timeZone wins, UTC included', async () => {
    const utc = await get(`groupBy=day&start=${START}&timeZone=UTC`);
    expect(utc.rows).toEqual(expected(`groupBy=day&start=${START}`).rows);
    expect(utc.rows).not.toEqual(expected(`groupBy=day&start=${START}&timeZone=America/New_York`).rows);
    expect(utc.zone).toBe('UTC');
    const kolkata = await get(`groupBy=day&start=${START}&timeZone=Asia/Kolkata`);
    expect(kolkata.zone).toBe('Asia/Kolkata');
    expect(kolkata.precision).toBe('hour');
  });

  it('a changed default zone answers the next query (auth cache off here) and the streams opened after it', async () => {
    expect(await setApiTimeZone(h.redis, h.config.keyPrefix, API, 'Asia/Kolkata')).toEqual({
      ok: true,
      previous: 'America/New_York',
    });
    const days = await get(`groupBy=day&start=${START}`);
    expect(days.rows).toEqual(expected(`groupBy=day&start=${START}&timeZone=Asia/Kolkata`, true).rows);
    expect(days.zone).toBe('Asia/Kolkata');
    expect(days.precision).toBe('hour');

    const client = await h.client(key);
    const controller = new AbortController();
    const stream = client.streamVerifications(
      { apiId: API, groupBy: ['day'], start: START, end: NOW },
      { signal: controller.signal, reconnect: false },
    );
    const first = await stream.next();
    controller.abort();
    expect(first.done).toBe(false);
    expect(first.value?.datapoints).toEqual(days.rows);
    expect(first.value?.precision).toBe('hour');
    const response = await fetch(`${await h.baseUrl()}/v1/analytics.stream?apiId=${API}&groupBy=day`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(scaled(30_000)),
    });
    expect(response.headers.get('x-time-zone')).toBe('Asia/Kolkata');
    await response.body?.cancel();

    // Back to UTC: the query answers as with timeZone=UTC.
    await setApiTimeZone(h.redis, h.config.keyPrefix, API, 'UTC');
    const utc = await get(`groupBy=day&start=${START}`);
    expect(utc.rows).toEqual(expected(`groupBy=day&start=${START}`).rows);
    expect(utc.zone).toBe('UTC');
  });
});

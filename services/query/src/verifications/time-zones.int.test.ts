// Time zones through the service (docs/api.md#time-zones): events every 20 minutes over 12 weeks
// written through the ingest path and partly compacted into rollups, then day and month slices of
// America/New_York (the 25-hour November 1) and Asia/Kolkata (+05:30) read from the real Redis and
// compared with the oracle: exact and without X-Precision in New York while the hours are kept, in
// Kolkata exact to the UTC hour with X-Precision: hour where a local midnight's UTC hour is older than
// the minute retention. Past the hour retention (a second API, at the real clock: Redis expires the
// hour and minute buckets by it) the UTC days count whole and the answer says X-Precision: day; there
// Kolkata, Kathmandu, St_Johns and Chatham days and months whose local midnights lie within the minute
// retention are split by the minute buckets: exact, without X-Precision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { HOUR_MS, hourOf, oracle, parseQuery, sliceStartsIn } from '@va/core';
import { compactApi, sealApi } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { LONG_RETENTION, eventEvery20Minutes } from '../testing/fixtures';
import { scaled } from '@va/testkit/time';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_zones';
const NOW = Date.UTC(2026, 10, 20, 10, 30);
const FIRST = Date.UTC(2026, 7, 28);

interface Setup {
  h: QueryHarness;
  key: string;
  events: VerificationEvent[];
}

const TAGS = [[], ['pro'], ['pro', 'eu'], ['eu']];
const REGIONS = [undefined, 'eu-west', 'us-east'];

/**
 * A service at `now` with an event every 20 minutes from `first` to an hour ago, compacted up to 30
 * hours ago; `sealed`: with tags and regions, and every compacted bucket sealed (sealed tag-set
 * sections are read projected by tag or region: libs/store read/projection.ts).
 */
async function setUp(
  name: string,
  now: number,
  first: number,
  { env = {}, sealed = false }: { env?: Record<string, string>; sealed?: boolean } = {},
): Promise<Setup> {
  const h = await queryHarness(name, { now, env });
  const key = await h.rootKey();
  await h.registerApi(API);
  const events = eventEvery20Minutes(API, first, now).map((e, n) =>
    sealed ? { ...e, tags: TAGS[n % TAGS.length]!, ...(REGIONS[n % 3] && { region: REGIONS[n % 3]! }) } : e,
  );
  await h.seed(events);
  const space = { prefix: h.config.keyPrefix, generation: 1 };
  const closedBound = hourOf(now) - 30;
  await compactApi(h.redis, space, API, { closedBound, retention: h.config.retention, now });
  if (sealed) await sealApi(h.redis, space, API, closedBound, { now, retention: h.config.retention });
  return { h, key, events };
}

let kept: Setup;
let past: Setup;
beforeAll(async () => {
  kept = await setUp('time-zones', NOW, FIRST, { env: LONG_RETENTION });
  const now = Date.now();
  past = await setUp('time-zones-past', now, Math.floor(now / HOUR_MS) * HOUR_MS - 60 * 24 * HOUR_MS, {
    sealed: true,
  });
}, scaled(180_000));
afterAll(async () => {
  await kept?.h.close();
  await past?.h.close();
});

/** Every event moved to the start of its UTC hour: what an answer exact to the hour counts. */
const floored = (events: VerificationEvent[]) =>
  events.map((e) => ({ ...e, time: Math.floor(e.time / HOUR_MS) * HOUR_MS }));

/**
 * The answer is the oracle's (which counts an hour holding a local midnight whole in the earlier day
 * where its minutes are gone: X-Precision: hour), and with `precision` 'hour' also the oracle's over
 * the events moved to the start of their hour.
 */
async function expectOracle(s: Setup, qs: string, precision: string | undefined, toTheHour = false) {
  const { h, key, events } = s;
  const query = `apiId=${API}&${qs}`;
  const parsed = parseQuery(new URLSearchParams(query), { now: h.now, maxRows: 100_000 });
  if (!parsed.ok) throw new Error(`invalid query ${qs}`);
  const options = { now: h.now, maxRows: 100_000, retention: h.config.retention };
  const exact = oracle(events, parsed.query, options);
  if (!exact.ok) throw new Error(`oracle refused ${qs}`);
  if (toTheHour) {
    const hourly = oracle(floored(events), parsed.query, options);
    expect([qs, hourly.ok && hourly.rows]).toEqual([qs, exact.rows]);
  }
  const response = await h.get(`${PATH}?${query}`, key);
  expect(response.statusCode, response.body).toBe(200);
  expect([qs, response.json()]).toEqual([qs, exact.rows]);
  expect([qs, response.headers['x-precision']]).toEqual([qs, exact.xPrecision]);
  expect([qs, response.headers['x-precision']]).toEqual([qs, precision]);
  return response.json() as { time: number; total: number }[];
}

const ms = (iso: string) => Date.parse(iso);

describe('timeZone through the service', () => {
  it('America/New_York: local days and months, exact within the hour retention', async () => {
    const start = ms('2026-10-20T04:00:00Z'); // local midnight of October 20
    const days = await expectOracle(kept, `groupBy=day&timeZone=America/New_York&start=${start}`, undefined);
    // November 1 has 25 hours: 75 events; every other full day 72.
    expect(days.find((r) => r.time === ms('2026-11-01T04:00:00Z'))?.total).toBe(75);
    expect(days.find((r) => r.time === ms('2026-11-02T05:00:00Z'))?.total).toBe(72);
    await expectOracle(kept, `groupBy=day&groupBy=key&timeZone=America/New_York&start=${start}`, undefined);
    await expectOracle(
      kept,
      `groupBy=day&timeZone=America/New_York&start=${start}&order=desc&limit=4`,
      undefined,
    );
    await expectOracle(kept, `groupBy=month&timeZone=America/New_York&start=${start}`, undefined);
    await expectOracle(kept, `timeZone=America/New_York&start=${start}`, undefined);
  });

  it('America/New_York past the hour retention: the UTC days counted whole, X-Precision: day', async () => {
    const start = hourOf(past.h.now) * HOUR_MS - 50 * 24 * HOUR_MS;
    await expectOracle(past, `groupBy=day&timeZone=America/New_York&start=${start}`, 'day');
    await expectOracle(past, 'groupBy=month&timeZone=America/New_York', 'day');
    // Inside the hour retention: exact again.
    const recent = hourOf(past.h.now) * HOUR_MS - 20 * 24 * HOUR_MS;
    await expectOracle(past, `groupBy=day&timeZone=America/New_York&start=${recent}`, undefined);
  });

  it('Asia/Kolkata past the minute retention: exact to the UTC hour, X-Precision: hour', async () => {
    const start = ms('2026-10-31T18:30:00Z'); // local midnight of November 1
    // Ends 3 days before the service's clock: every local midnight of the range is older than the minute
    // retention (the fixed clock's minute buckets are gone anyway: Redis expires them by the real one).
    const end = NOW - 3 * 24 * HOUR_MS;
    await expectOracle(kept, `groupBy=day&timeZone=Asia/Kolkata&start=${start}&end=${end}`, 'hour', true);
    await expectOracle(
      kept,
      `groupBy=month&groupBy=key&timeZone=Asia/Kolkata&start=${start}&end=${end}`,
      'hour',
      true,
    );
    // Hour slices are the UTC hours in every zone: exact.
    await expectOracle(kept, `groupBy=hour&timeZone=Asia/Kolkata&start=${NOW - 40 * HOUR_MS}`, undefined);
  });

  for (const zone of ['Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham']) {
    it(`${zone}: local midnights within the minute retention split exactly, older ones X-Precision: hour`, async () => {
      const nowHour = hourOf(past.h.now);
      const recent = (nowHour - 40) * HOUR_MS; // every local midnight from here on is within 48 hours
      const older = (nowHour - 5 * 24) * HOUR_MS;
      // Months from 30 days back: their local first of the month is older than the minute retention (or
      // none lies inside a range of the last 40 hours but on the first two days of a month: split too).
      const olderMonth = (nowHour - 30 * 24) * HOUR_MS;
      const draws = (start: number, end = '', monthStart = start) => [
        `groupBy=day&timeZone=${zone}&start=${start}${end}`,
        `groupBy=day&groupBy=key&timeZone=${zone}&start=${start}${end}`,
        `groupBy=day&timeZone=${zone}&start=${start}${end}&order=desc&limit=4`,
        `groupBy=day&timeZone=${zone}&start=${start}${end}&keyId=key_1`,
        `groupBy=month&timeZone=${zone}&start=${monthStart}${end}`,
        `groupBy=month&groupBy=key&timeZone=${zone}&start=${monthStart}${end}`,
        // Projected reads (by tag alone, by region alone) beside the minutes' counts by code.
        `groupBy=day&groupBy=tag&timeZone=${zone}&start=${start}${end}`,
        `groupBy=day&groupBy=region&timeZone=${zone}&start=${start}${end}`,
        `groupBy=day&groupBy=tags&timeZone=${zone}&start=${start}${end}&tag=pro`,
      ];
      for (const qs of draws(recent)) await expectOracle(past, qs, undefined);
      // A range whose last hour holds a local midnight: the last row counts its own instants only.
      const midnights = sliceStartsIn(nowHour - 40, nowHour - 2, 'day', zone).filter((t) => t > recent);
      const edge = midnights.at(-1)!;
      expect(edge % HOUR_MS).not.toBe(0);
      for (const qs of draws(recent, `&end=${edge}`)) await expectOracle(past, qs, undefined);
      for (const qs of draws(older, '', olderMonth)) await expectOracle(past, qs, 'hour');
    });
  }

  it('timeZone=UTC answers as no timeZone; an unknown zone is 400 at query.timeZone', async () => {
    const qs = `apiId=${API}&groupBy=day&start=${ms('2026-11-01T00:00:00Z')}`;
    const { h, key } = kept;
    const plain = await h.get(`${PATH}?${qs}`, key);
    const utc = await h.get(`${PATH}?${qs}&timeZone=UTC`, key);
    expect(utc.json()).toEqual(plain.json());
    const bad = await h.get(`${PATH}?${qs}&timeZone=Mars/Olympus`, key);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.errors.map((e: { location: string }) => e.location)).toEqual(['query.timeZone']);
  });
});

// Minute slices through the service (docs/api.md#minute-slices): events of the last 3 hours (and some older
// than the minute retention) written through the ingest path into the real Redis, at the real clock (Redis
// expires the minute buckets by it), part of the hours compacted; then groupBy=minute with every filter and
// group the contract allows with hour slices, compared with the oracle: exact, gap-filled, no X-Precision.
// A start before the minute retention is 400 at query.start, naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTCOMES, type VerificationEvent } from '@va/contracts';
import { HOUR_MS, hourOf, minuteOf } from '@va/core';
import { apiKeys, compactApi } from '@va/store';
import { queryHarness, type QueryHarness } from '../testing/harness';
import { expectOracleAnswer } from '../testing/oracle-answer';
import { scaled } from '@va/testkit/time';

const PATH = '/v1/analytics.getVerifications';
const API = 'api_minutes';
const TAG_SETS = [[], ['plan:pro'], ['plan:pro', 'beta'], ['beta']];
const REGIONS = [undefined, 'eu-west-1', 'us-east-1'];

let h: QueryHarness;
let key: string;
const events: VerificationEvent[] = [];

beforeAll(async () => {
  h = await queryHarness('minutes');
  key = await h.rootKey();
  await h.registerApi(API);
  // An event every 7 s over the last 3 hours (and up to 4 minutes ahead), plus a few hours older than the
  // minute retention: counted in their hours, in no minute.
  let n = 0;
  const at = (time: number): VerificationEvent => {
    const region = REGIONS[n % 3];
    const event: VerificationEvent = {
      requestId: `r${n}`,
      time,
      workspaceId: 'ws_1',
      apiId: API,
      keyId: `key_${n % 5}`,
      outcome: OUTCOMES[(n * 7) % OUTCOMES.length]!,
      tags: TAG_SETS[n % 4]!,
      ...(n % 5 !== 4 && { identity: { id: `id_${n % 4}`, externalId: `ext_${n % 4}` } }),
      ...(region !== undefined && { region }),
    };
    n++;
    return event;
  };
  for (let t = h.now - 3 * HOUR_MS; t < h.now + 4 * 60_000; t += 7_000) events.push(at(t));
  for (let t = h.now - 52 * HOUR_MS; t < h.now - 49 * HOUR_MS; t += 600_000) events.push(at(t));
  await h.seed(events);
  // Minutes are never compacted: a query reads them the same whatever the compaction point.
  await compactApi(h.redis, { prefix: h.config.keyPrefix, generation: 1 }, API, {
    closedBound: hourOf(h.now) - 2,
    retention: h.config.retention,
    now: h.now,
  });
}, scaled(120_000));
afterAll(async () => {
  await h?.close();
});

async function expectOracle(qs: string) {
  const response = await expectOracleAnswer(h, key, events, `apiId=${API}&groupBy=minute&${qs}`, qs);
  expect([qs, response.headers['x-precision']]).toEqual([qs, undefined]);
  return response.json() as { time: number; total: number }[];
}

describe('groupBy=minute through the service', () => {
  it('the last 3 hours by minute: every minute, gaps as zeros, exact', async () => {
    const start = h.now - 3 * HOUR_MS;
    const rows = await expectOracle(`start=${start}`);
    expect(rows).toHaveLength(minuteOf(h.now) - minuteOf(start) + 1);
    expect(rows.every((r) => r.total > 0)).toBe(true);
    // A range without data, 47 to 46 hours back: zeros.
    const empty = await expectOracle(`start=${h.now - 47 * HOUR_MS}&end=${h.now - 46 * HOUR_MS}`);
    expect(empty.every((r) => r.total === 0)).toBe(true);
    // The future minutes the worker accepted (up to 5 minutes ahead), with an end there.
    await expectOracle(`start=${h.now - 10 * 60_000}&end=${h.now + 5 * 60_000}`);
  });

  it('every filter and group of hour slices, one at a time and combined', async () => {
    const start = `start=${h.now - 2 * HOUR_MS}&end=${h.now - HOUR_MS + 17_000}`;
    for (const qs of [
      'groupBy=key',
      'groupBy=identity',
      'groupBy=tag',
      'groupBy=tags',
      'groupBy=region',
      'keyId=key_1',
      'keyId=key_1,key_3&groupBy=identity',
      'externalId=ext_2',
      'externalId=ext_2&groupBy=key,tags',
      'externalId=ext_0&keyId=key_0,key_4&tag=beta',
      'tag=plan:pro',
      'tag=plan:pro&tag=beta&groupBy=key',
      'region=eu-west-1&groupBy=identity,tag',
      'region=us-east-1,eu-west-1&groupBy=region,key',
      'groupBy=key,identity,tags,region',
      'groupBy=identity&externalId=nobody',
      'keyId=key_unknown',
    ])
      await expectOracle(`${qs}&${start}`);
  });

  it('ordered and limited as other slices', async () => {
    const start = `start=${h.now - 90 * 60_000}`;
    await expectOracle(`${start}&order=desc&limit=7`);
    await expectOracle(`${start}&groupBy=key&limit=12`);
    await expectOracle(`${start}&groupBy=identity&orderBy=total&order=desc&limit=5`);
    await expectOracle(`${start}&orderBy=valid&order=desc`);
  });

  it('is the UTC minutes in any time zone', async () => {
    const start = `start=${h.now - 40 * 60_000}`;
    await expectOracle(`${start}&timeZone=Asia/Kathmandu`);
    await expectOracle(`${start}&timeZone=America/St_Johns&groupBy=key`);
  });

  it('writes each minute as two plain hashes, t and f, that expire after the minute retention', async () => {
    const minute = minuteOf(h.now - HOUR_MS);
    const keys = apiKeys({ prefix: h.config.keyPrefix, generation: 1 }, API);
    const expiry = (minute + 1) * 60_000 + h.config.retention.minuteMs!;
    for (const cube of ['t', 'f']) {
      const name = keys.cube('n', minute, cube);
      expect([name, await h.redis.type(name), await h.redis.pexpiretime(name)]).toEqual([
        name,
        'hash',
        expiry,
      ]);
    }
    expect(await h.redis.exists(`${keys.bucketPrefix('n', minute)}:parts`)).toBe(0);
    expect(await h.redis.zrange(keys.dirty, 0, -1)).not.toContainEqual(expect.stringMatching(/^n:/));
    // The events older than the minute retention are in no minute.
    expect(await h.redis.exists(keys.cube('n', minuteOf(h.now - 50 * HOUR_MS), 't'))).toBe(0);
  });

  it('refuses a start before the minute retention, and no start, at query.start naming the retention', async () => {
    for (const qs of [`start=${h.now - 49 * HOUR_MS}`, '']) {
      const response = await h.get(`${PATH}?apiId=${API}&groupBy=minute&${qs}`, key);
      expect(response.statusCode).toBe(400);
      const [error] = response.json().error.errors;
      expect(error.location).toBe('query.start');
      expect(error.message).toContain('minute slices are kept for 48 hours');
    }
  });

  it('with a minute retention of 0 counts no minute and refuses every minute query, not answering zeros', async () => {
    const off = await queryHarness('minutes-off', { env: { RETENTION_MINUTES_HOURS: '0' } });
    try {
      const offKey = await off.rootKey();
      await off.registerApi(API);
      await off.seed([{ ...events.at(-1)!, time: off.now }]);
      const minute = await off.get(`${PATH}?apiId=${API}&groupBy=minute&start=${off.now}`, offKey);
      expect(minute.statusCode).toBe(400);
      expect(minute.json().error.errors).toEqual([
        expect.objectContaining({ location: 'query.start', message: expect.stringContaining('not kept') }),
      ]);
      const hour = await off.get(`${PATH}?apiId=${API}&groupBy=hour&start=${off.now}`, offKey);
      expect(hour.json<{ total: number }[]>().map((row) => row.total)).toEqual([1]);
      expect(await off.redis.keys(`${off.config.keyPrefix}:*:n:*`)).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

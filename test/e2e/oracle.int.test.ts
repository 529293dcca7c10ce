/**
 * The oracle test: a few thousand random events (APIs, keys, identities, tag
 * sets, regions, outcomes, times over several months) go through Kafka and the real ingest worker, in
 * two waves: after the first, api_a's closed hours are compacted into day and month rollups, so
 * the second wave holds late events for compacted hours. Then the compactor service starts and
 * works while the second wave is ingested and while ≥500 random valid queries (every parameter
 * combination, edges of hours, days and months, limits, orders) are asked over HTTP and compared
 * with core's oracle over the same events, including the X-Precision of ranges past the hour
 * retention; and once every closed hour of every API is compacted, ≥500 queries again.
 *
 * Reproduce a failure with ORACLE_SEED=<seed> ORACLE_NOW=<now>, both printed on failure.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import { ApiError, type AnalyticsClient, type GetVerificationsParams } from '@va/client';
import { HOUR_GRANULARITIES, ORDER_BY, OUTCOMES, type GroupBy, type VerificationEvent } from '@va/contracts';
import {
  DAY_MS,
  HOUR_MS,
  dayStart,
  hourOf,
  hourStart,
  monthOf,
  monthStart,
  oracle,
  parseQuery,
} from '@va/core';
import { compactApi, readCompactedThrough } from '@va/store';
import { expectJsonEqual, startService, waitFor, type ServiceProcess } from '@va/testkit/support';
import { startStack, type Stack } from './stack';
import { ANSWER_BUDGET_MS, scaled } from '@va/testkit/time';

const SEED = Number(process.env.ORACLE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const EVENTS = Number(process.env.ORACLE_EVENTS ?? 3000);
const QUERIES = Number(process.env.ORACLE_QUERIES ?? 600);

/** mulberry32: a small seeded PRNG, so that a failing run can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const chance = (p: number) => next() < p;
  const some = <T>(items: readonly T[], max: number): T[] => {
    const n = int(1, max);
    return Array.from({ length: n }, () => pick(items));
  };
  return { next, int, pick, chance, some };
}

const r = rng(SEED);
// Fixed for the whole run (service and oracle agree on "now"), a little behind the real clock. The events and
// queries are drawn relative to it, and the plans depend on where hours, days and months fall: a failure replays
// with its seed and its now (ORACLE_NOW, printed with it).
const NOW = Number(process.env.ORACLE_NOW ?? Date.now());
const retention = loadConfig({}).retention; // the defaults: hours 35 d, days 400 d, months 5 y
const HOUR_HORIZON = NOW - retention.hourMs;

const APIS = ['api_a', 'api_b'];
const KEYS = Array.from({ length: 8 }, (_, n) => `key_${n}`);
const IDENTITIES = [
  { id: 'id_alice', externalId: 'alice@example.com' },
  { id: 'id_bob', externalId: 'bob' },
  { id: 'id_carol', externalId: 'org:carol' },
  { id: 'id_carol2', externalId: 'org:carol' }, // one externalId, two identities
  { id: 'id_dave', externalId: 'Dave Ünïcödé' },
  { id: 'id.eve:1', externalId: 'eve' },
];
const TAGS = ['eu', 'us', 'pro', 'free', 'path:/v1/x', 'beta', 'ü'];
/** A region may hold what a tag may not: a comma (it cannot be named in a filter, it still groups). */
const REGIONS = ['eu-west-1', 'us-east-1', 'ap south ✓', 'eu', 'x,y'];

/** A time over the last ~5 months; never within 3 hours of the hour horizon (whose keys expire mid-run). */
function eventTime(): number {
  for (;;) {
    const back = r.chance(0.4) ? r.int(0, 3 * DAY_MS) : r.int(-4 * 60_000, 150 * DAY_MS);
    const time = NOW - back;
    if (Math.abs(time - HOUR_HORIZON) > 3 * HOUR_MS) return time;
  }
}

const events: VerificationEvent[] = Array.from({ length: EVENTS }, (_, n) => {
  const event: VerificationEvent = {
    requestId: `req_${n}`,
    time: eventTime(),
    workspaceId: 'ws_1',
    apiId: r.chance(0.8) ? 'api_a' : 'api_b',
    keyId: r.pick(KEYS),
    outcome: r.pick(OUTCOMES),
  };
  if (r.chance(0.6)) event.identity = r.pick(IDENTITIES);
  if (r.chance(0.7)) event.tags = r.chance(0.2) ? [] : r.some(TAGS, 3);
  if (r.chance(0.6)) event.region = r.chance(0.05) ? '' : r.pick(REGIONS); // '' is no region
  return event;
});

/** Edges worth querying: hour, day and month starts near event times, ± 1 ms. */
function edgeTime(): number {
  const base = r.pick(events).time;
  const aligned = r.pick([
    hourStart(Math.floor(base / HOUR_MS)),
    dayStart(Math.floor(base / DAY_MS)),
    monthStart(monthOf(base)),
  ]);
  return Math.max(0, aligned + r.pick([-1, 0, 0, 1, r.int(0, HOUR_MS)]));
}

interface RandomQuery {
  /** For the typed client. */
  params: GetVerificationsParams;
  /** The same query as a raw query string, lists either comma-separated or repeated. */
  qs: string;
}

function randomQuery(): RandomQuery {
  const apiId = r.chance(0.95) ? r.pick(APIS) : 'api_empty';
  const params: GetVerificationsParams = { apiId };
  const pairs: [string, string][] = [['apiId', apiId]];
  const list = (name: 'keyId' | 'tag' | 'region' | 'groupBy', items: string[]) => {
    if (r.chance(0.5)) pairs.push([name, items.join(',')]);
    else for (const item of items) pairs.push([name, item]);
  };
  if (r.chance(0.2)) {
    params.externalId = r.chance(0.9) ? r.pick(IDENTITIES).externalId : 'nobody';
    pairs.push(['externalId', params.externalId]);
  }
  if (r.chance(0.25)) list('keyId', (params.keyId = r.some([...KEYS, 'key_unknown'], 3)));
  if (r.chance(0.25)) list('tag', (params.tag = r.some([...TAGS, 'never'], 2)));
  const nameable = REGIONS.filter((region) => !region.includes(','));
  if (r.chance(0.2)) list('region', (params.region = r.some([...nameable, 'nowhere'], 2)));

  const groupBy: GroupBy[] = [];
  if (r.chance(0.3)) groupBy.push('key');
  if (r.chance(0.3)) groupBy.push('identity');
  if (r.chance(0.3)) groupBy.push(r.pick(['tag', 'tags'] as const));
  if (r.chance(0.25)) groupBy.push('region');
  const granularity = r.chance(0.6) ? r.pick(HOUR_GRANULARITIES) : undefined;
  if (granularity) groupBy.push(granularity);
  if (groupBy.length > 0) list('groupBy', (params.groupBy = groupBy));

  // Hour slices over at most ~60 days keep answers small; without a start the range starts at the data.
  const maxSpan = granularity === 'hour' ? 60 * DAY_MS : 200 * DAY_MS;
  let start = r.chance(0.15) ? undefined : r.chance(0.7) ? edgeTime() : NOW - r.int(0, 160 * DAY_MS);
  let end: number | undefined;
  if (r.chance(0.3)) end = undefined;
  else if (start === undefined) end = NOW - r.int(0, 30 * DAY_MS);
  else end = Math.min(start + r.int(0, maxSpan), NOW + r.int(-2 * HOUR_MS, 2 * HOUR_MS));
  if (start !== undefined && end !== undefined && end < start) end = start;
  if (start !== undefined && end === undefined && start > NOW) end = start;
  if (granularity === 'hour' && start === undefined) end ??= NOW; // the range starts at the first data
  if (granularity === 'hour' && start !== undefined && (end ?? NOW) - start > maxSpan) end = start + maxSpan;
  if (granularity === 'hour' && start === undefined) start = NOW - 50 * DAY_MS;
  if (start !== undefined) pairs.push(['start', String((params.start = start))]);
  if (end !== undefined) pairs.push(['end', String((params.end = end))]);

  // About one query in fifteen is a leaderboard: one slice, a counter descending, a small limit (the
  // service builds rows for the largest groups only: libs/core top-groups.ts).
  const topN = !granularity && groupBy.length > 0 && r.chance(0.25);
  if (topN || r.chance(0.3)) pairs.push(['limit', String((params.limit = r.int(1, topN ? 10 : 30)))]);
  if (topN || r.chance(0.35)) {
    params.orderBy = r.pick(granularity ? ORDER_BY : ORDER_BY.filter((o) => o !== 'time'));
    pairs.push(['orderBy', params.orderBy]);
  }
  if (topN) pairs.push(['order', (params.order = 'desc')]);
  else if (r.chance(0.3)) pairs.push(['order', (params.order = r.pick(['asc', 'desc'] as const))]);
  return { params, qs: new URLSearchParams(pairs).toString() };
}

/** One query through the typed client (even n) or as raw HTTP (odd n): status, body and X-Precision. */
async function ask(n: number, query: RandomQuery) {
  if (n % 2 === 1) {
    const response = await stack.get(query.qs, key);
    return { status: response.status, body: response.body, precision: response.headers.get('x-precision') };
  }
  try {
    const result = await client.getVerifications(query.params);
    return {
      status: 200,
      body: result.datapoints,
      precision: result.precision === 'hour' ? null : result.precision,
    };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, body: error.detail, precision: null };
  }
}

let stack: Stack;
let key: string;
let client: AnalyticsClient;
let compactor: ServiceProcess | undefined;

beforeAll(async () => {
  stack = await startStack('e2e oracle', {
    FIXED_NOW_MS: String(NOW),
    // Correctness, not speed: a random query may ask ~90,000 rows (22 MB of JSON), which a loaded CI machine
    // once took past the 10 s default budget (a 503). The budget has tests of its own, which set it.
    QUERY_TIMEOUT_MS: String(ANSWER_BUDGET_MS),
  });
  key = await stack.rootKey();
  // The client's deadline as the service's budget (QUERY_TIMEOUT_MS above): its 10 s default once ran out on a
  // loaded CI machine.
  client = stack.client(key, { timeoutMs: ANSWER_BUDGET_MS });
  await stack.registerApi('api_empty', 'ws_1');
  const firstWave = events.slice(0, Math.floor(EVENTS * 0.8));
  await ingest(firstWave);
  const space = { prefix: stack.t.keyPrefix, generation: 1 };
  const compacted = await compactApi(stack.redis, space, 'api_a', {
    closedBound: hourOf(NOW) - 1,
    retention,
    now: NOW,
  });
  expect(compacted.hoursCompacted).toBeGreaterThan(0);
  // From here on the compactor service runs beside ingestion and the queries (grace 0: every
  // hour before NOW's is closed), so reads race compaction as they do in production.
  compactor = startService('compactor', {
    ...stack.t.env,
    FIXED_NOW_MS: String(NOW),
    COMPACTION_EVERY_MS: '200',
    COMPACTION_GRACE_MS: '0',
  });
  await compactor.waitForHealth(`http://127.0.0.1:${stack.t.compactorMetricsPort}/health`);
  await ingest(events);
}, scaled(300_000));

/** Produces the events not produced yet and waits until the service counts all of them. */
let produced = 0;
async function ingest(upTo: readonly VerificationEvent[]) {
  await stack.produce(upTo.slice(produced));
  produced = upTo.length;
  for (const apiId of APIS) {
    await stack.waitForTotal(apiId, upTo.filter((e) => e.apiId === apiId).length, key, 180_000);
  }
}
afterAll(async () => {
  await compactor?.kill();
  await stack?.stop();
});

async function compareWithOracle(label: string): Promise<void> {
  const seen = { rows: 0, precision: 0, empty: 0 };
  for (let n = 0; n < QUERIES; n++) {
    const query = randomQuery();
    const qs = query.qs;
    const parsed = parseQuery(new URLSearchParams(qs), { now: NOW, maxRows: 100_000 });
    if (!parsed.ok) throw new Error(`generated an invalid query ${qs}: ${JSON.stringify(parsed.errors)}`);
    const expected = oracle(events, parsed.query, { now: NOW, maxRows: 100_000, retention });
    const response = await ask(n, query);
    const context = `${label}: seed ${SEED}, now ${NOW}, query #${n} (${n % 2 ? 'raw HTTP' : 'client'}): ${qs}`;
    if (!expected.ok) {
      expect(response.status, context).toBe(400);
      continue;
    }
    // The body in the message only on a failure: serialised for every query, it cost seconds of the run.
    const statusContext =
      response.status === 200 ? context : `${context}\n${JSON.stringify(response.body).slice(0, 500)}`;
    expect(response.status, statusContext).toBe(200);
    expectJsonEqual(response.body, expected.rows, context);
    const precision = expected.precision === 'hour' ? null : expected.precision;
    expect(response.precision, context).toBe(precision);
    seen.rows += expected.rows.length;
    if (precision) seen.precision++;
    if (expected.rows.every((row) => row.total === 0)) seen.empty++;
  }
  console.info(
    `oracle (${label}): ${QUERIES} queries, ${seen.rows} rows, ${seen.precision} with X-Precision, ${seen.empty} all-zero`,
  );
  // The generator must reach answers with data and past the hour horizon, or it checks less than it claims.
  expect(seen.rows).toBeGreaterThan(QUERIES);
  expect(seen.precision).toBeGreaterThan(0);
  expect(seen.empty).toBeLessThan(QUERIES / 2);
}

it(
  `answers ${QUERIES} random queries like the oracle while the compactor runs (seed ${SEED})`,
  { timeout: scaled(600_000) },
  () => compareWithOracle('compacting'),
);

it(
  `answers ${QUERIES} random queries like the oracle once every hour is compacted (seed ${SEED})`,
  { timeout: scaled(600_000) },
  async () => {
    const space = { prefix: stack.t.keyPrefix, generation: 1 };
    const closedBound = hourOf(NOW) - 1;
    await waitFor(
      async () => {
        const cmps = await Promise.all(APIS.map((apiId) => readCompactedThrough(stack.redis, space, apiId)));
        return cmps.every((cmp) => cmp !== null && cmp >= closedBound);
      },
      { timeoutMs: 240_000, intervalMs: 500, message: 'every closed hour compacted' },
    );
    await compareWithOracle('all compacted');
  },
);

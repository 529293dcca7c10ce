/**
 * The dashboard in real Chromium against the real stack (Kafka → ingest worker → Redis → query service,
 * which also serves the page): known events go through Kafka, the page is opened and signed in with a
 * root key, and everything it renders (totals, chart series, top tables) must equal the API's answers to
 * the very queries the page asked (window.__dashboard.queries). Then a filter changes, new events arrive
 * and the auto refresh must pick them up. Last, an end user's read token: the page shows that user's view
 * only, and neither the page nor the API with that token ever shows another identity's data.
 *
 * `npm run screenshots` runs this file with DASHBOARD_SCREENSHOTS=docs/img: it then saves PNGs of the
 * views it checks.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type AnalyticsClient, type VerificationsQuery } from '@va/client';
import { OUTCOME_FIELDS, type Datapoint, type Outcome, type VerificationEvent } from '@va/contracts';
import { ensureDashboardBuilt, type DashboardDebug } from '@va/dashboard';
import { launchChromium, type Chromium } from '@va/testkit/browser';
import { startStack, type Stack } from './stack';
import { scaled } from '@va/testkit/time';

const HOUR = 3_600_000;
const API = 'api_shop';
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS;

/** mulberry32: seeded, so the seeded traffic (and the screenshots) look the same every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['key_checkout', 'key_search', 'key_mobile', 'key_admin', 'key_legacy'];
const IDENTITIES = [
  { id: 'id_acme', externalId: 'acme' },
  { id: 'id_globex', externalId: 'globex' },
  { id: 'id_initech', externalId: 'initech' },
];
const TAGS = [['env:prod', 'path:/v1/orders'], ['env:prod', 'path:/v1/search'], ['env:staging'], []];
const REGIONS = ['eu-west-1', 'us-east-1', 'ap-south-1'];
/** Mostly VALID, a tail of every failure. */
const OUTCOME_WEIGHTS: [Outcome, number][] = [
  ['VALID', 78],
  ['RATE_LIMITED', 8],
  ['USAGE_EXCEEDED', 5],
  ['NOT_FOUND', 3],
  ['FORBIDDEN', 2],
  ['EXPIRED', 1.5],
  ['DISABLED', 1],
  ['UNAUTHORIZED', 1],
  ['INSUFFICIENT_PERMISSIONS', 0.5],
];

function pick<T>(random: () => number, items: readonly T[], weights?: readonly number[]): T {
  const w = weights ?? items.map(() => 1);
  let r = random() * w.reduce((a, b) => a + b, 0);
  for (let i = 0; i < items.length; i++) if ((r -= w[i]!) < 0) return items[i]!;
  return items[items.length - 1]!;
}

/** Traffic of the last 22 hours with a daily swing, skewed towards the first keys and identities. */
function traffic(
  apiId: string,
  count: number,
  seed: number,
  now: number,
  prefix: string,
): VerificationEvent[] {
  const random = rng(seed);
  return Array.from({ length: count }, (_, i): VerificationEvent => {
    let ago = random() * 22 * HOUR;
    if (random() < 0.4) ago = (random() * 0.3 + 0.35) * 22 * HOUR; // a busy stretch mid-range
    const identity = pick(random, [...IDENTITIES, undefined], [5, 3, 1, 2]);
    const tags = pick(random, TAGS, [4, 3, 2, 1]);
    const event: VerificationEvent = {
      requestId: `${prefix}-${i}`,
      time: Math.floor(now - ago),
      workspaceId: 'ws_1',
      apiId,
      keyId: pick(random, KEYS, [8, 5, 3, 1, 0.5]),
      outcome: pick(
        random,
        OUTCOME_WEIGHTS.map(([o]) => o),
        OUTCOME_WEIGHTS.map(([, w]) => w),
      ),
      ...(identity && { identity }),
      ...(tags.length > 0 && { tags }),
    };
    const region = pick(random, [...REGIONS, undefined], [5, 3, 1, 2]);
    if (region) event.region = region;
    return event;
  });
}

let stack: Stack;
let chromium: Chromium;
let rootKey: string;
let client: AnalyticsClient;
const SEEDED = 2500;

beforeAll(async () => {
  await ensureDashboardBuilt({ quiet: true }); // before the query service starts: it serves dist/
  // A signing key for read tokens (at least 32 bytes), as an operator would configure it.
  stack = await startStack('dashboard browser', {
    READ_TOKEN_KEYS: `dash1:${crypto.randomBytes(32).toString('hex')}`,
  });
  rootKey = await stack.rootKey(['api.*.read_api'], 'ws_1');
  client = stack.client(rootKey);
  const now = Date.now();
  await stack.produce([
    ...traffic(API, SEEDED, 7, now, 'shop'),
    ...traffic('api_other', 300, 8, now, 'other'),
  ]);
  await stack.waitForTotal(API, SEEDED, rootKey);
  await stack.waitForTotal('api_other', 300, rootKey);
  chromium = await launchChromium();
});

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
});

async function state(page: Page): Promise<DashboardDebug> {
  return page.evaluate(() => window.__dashboard);
}

/** Waits for a completed refresh after `after` refreshes that drew without an error. */
async function refreshed(page: Page, after: number): Promise<DashboardDebug> {
  await page.waitForFunction((n) => window.__dashboard.refreshes > n && window.__dashboard.totals, after, {
    timeout: scaled(60_000),
  });
  const s = await state(page);
  expect(s.error).toBeUndefined();
  return s;
}

/** The API requests of a page: every response status, and the most it had in flight at once. */
interface ApiTraffic {
  statuses: number[];
  maxInFlight: number;
}

/** Records the page's API requests (as the browser saw them) from now on. */
function watchApi(page: Page): ApiTraffic {
  const traffic: ApiTraffic = { statuses: [], maxInFlight: 0 };
  const isApi = (url: string) => new URL(url).pathname.startsWith('/v1/');
  let inFlight = 0;
  page.on('request', (request) => {
    if (!isApi(request.url())) return;
    inFlight++;
    traffic.maxInFlight = Math.max(traffic.maxInFlight, inFlight);
  });
  page.on('response', (response) => {
    if (isApi(response.url())) traffic.statuses.push(response.status());
  });
  const done = (request: Request) => {
    if (isApi(request.url())) inFlight--;
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return traffic;
}

/**
 * Signs in and waits for the first drawn refresh. The first paint must fit the limits the service ships
 * with: no request of it may be turned away with 429 (QUERY_MAX_CONCURRENT 4 per root key, half of that for
 * one end user's read tokens), so the page has at most 2 requests in flight.
 */
async function signIn(page: Page, secret: string): Promise<DashboardDebug> {
  const before = (await state(page)).refreshes;
  const traffic = watchApi(page);
  await page.fill('#secret', secret);
  await page.click('#sign-in-form button[type=submit]');
  const s = await refreshed(page, before);
  expect(traffic.statuses.length).toBeGreaterThanOrEqual(5);
  expect(traffic.statuses.filter((status) => status === 429)).toEqual([]);
  expect(traffic.maxInFlight).toBeLessThanOrEqual(2);
  return s;
}

async function rowsOf(query: VerificationsQuery | undefined, api = client): Promise<Datapoint[]> {
  if (!query) throw new Error('the page has asked no query yet');
  return (await api.getVerifications(query)).datapoints;
}

/** Everything the page shows equals the API's answers (asked with `api`'s key) to the page's own queries. */
async function expectPageMatchesApi(page: Page, s: DashboardDebug, api = client): Promise<Datapoint> {
  const q = s.queries!;
  const [series, totalRows, keys, identities, tags, regions] = await Promise.all([
    rowsOf(q.series, api),
    rowsOf(q.totals, api),
    rowsOf(q.topKeys, api),
    rowsOf(q.topIdentities, api),
    rowsOf(q.topTags, api),
    rowsOf(q.topRegions, api),
  ]);
  const totals = totalRows[0];
  if (!totals) throw new Error('no totals row');

  // Totals: the debug object and the rendered cards.
  for (const field of [...OUTCOME_FIELDS, 'total'] as const) {
    expect(s.totals?.[field], field).toBe(totals[field]);
    const shown = await page.getAttribute(`#totals [data-outcome="${field}"]`, 'data-count');
    expect(Number(shown), `card ${field}`).toBe(totals[field]);
  }

  // Chart: one slice per API row; each outcome's bar tops at the running sum of the outcomes below it.
  expect(s.series?.time).toEqual(series.map((r) => r.time! / 1000));
  expect(s.chart?.time).toEqual(series.map((r) => r.time! / 1000));
  for (const field of OUTCOME_FIELDS)
    expect(s.series?.outcomes[field], field).toEqual(series.map((r) => r[field]));
  OUTCOME_FIELDS.forEach((field, i) => {
    const below = OUTCOME_FIELDS.slice(0, i + 1);
    const expected = series.map((r) => below.reduce((sum, f) => sum + r[f], 0));
    expect(s.chart?.stacked[field], `stacked ${field}`).toEqual(expected);
  });
  expect(s.chart?.stacked.expired).toEqual(series.map((r) => r.total));

  // Top tables: labels, counts and shares, in the API's order, rendered as rows.
  const share = (n: number) => (totals.total > 0 ? n / totals.total : 0);
  const expectTable = async (
    id: string,
    shown: unknown,
    rows: Datapoint[],
    label: (r: Datapoint) => string,
  ) => {
    const expected = rows.map((r) => ({ label: label(r), total: r.total, share: share(r.total) }));
    expect(shown).toEqual(expected);
    const rendered = await page.$$eval(`#${id} tbody tr`, (trs) =>
      trs.map((tr) => ({
        label: (tr as HTMLElement).dataset.label,
        total: Number((tr as HTMLElement).dataset.count),
      })),
    );
    expect(rendered).toEqual(expected.map(({ label: l, total }) => ({ label: l, total })));
  };
  await expectTable('top-keys', s.top?.keys, keys, (r) => r.keyId!);
  await expectTable(
    'top-identities',
    s.top?.identities,
    identities,
    (r) => `${r.identity!.externalId} (${r.identity!.id})`,
  );
  await expectTable('top-tags', s.top?.tags, tags, (r) => r.tag!);
  await expectTable('top-regions', s.top?.regions, regions, (r) => r.region!);
  return totals;
}

async function screenshot(page: Page, name: string, height?: number): Promise<void> {
  if (!SCREENSHOTS) return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  if (height) await page.screenshot({ path: file, clip: { x: 0, y: 0, width: 1280, height } });
  else await page.screenshot({ path: file, fullPage: true });
}

describe('dashboard in Chromium', () => {
  let page: Page;

  it('signs in with a root key and shows exactly what the API answers (#45: its first paint gets no 429)', async () => {
    page = await chromium.context.newPage();
    await page.goto(`${stack.t.queryUrl}/dashboard#apiId=${API}&refresh=5`);
    expect(await page.isVisible('#sign-in')).toBe(true);
    expect(await page.isVisible('#board')).toBe(false);
    await screenshot(page, 'dashboard-sign-in', 200);
    const s = await signIn(page, rootKey);
    expect(s.mode).toBe('rootKey');
    expect(s.queries?.series.groupBy).toEqual(['hour']);
    const totals = await expectPageMatchesApi(page, s);
    expect(totals.total).toBe(SEEDED); // every seeded event is inside the last 24 hours
    expect(s.top?.keys[0]?.label).toBe('key_checkout');

    // The secret stays in this tab's sessionStorage: never in the URL, localStorage or a cookie.
    expect(page.url()).not.toContain(rootKey);
    const storage = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: localStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({ session: [rootKey], local: 0, cookie: '' });
    expect(await page.textContent('#countdown')).toMatch(/next in \d+ s|refreshing/);
    await screenshot(page, 'dashboard-root-key');
  });

  it('follows a filter change, keeps it in the URL, and a shared link opens the same view after sign-in', async () => {
    const before = (await state(page)).refreshes;
    await page.fill('#filters input[name=keyIds]', 'key_checkout, key_search');
    await page.fill('#filters input[name=tags]', 'env:prod');
    await page.selectOption('#filters select[name=granularity]', 'day');
    await page.click('#filters button[type=submit]');
    await page.waitForFunction(
      (n) => window.__dashboard.refreshes > n && window.__dashboard.queries?.totals.tag?.[0] === 'env:prod',
      before,
      { timeout: scaled(60_000) },
    );
    const s = await state(page);
    expect(s.error).toBeUndefined();
    expect(s.queries?.totals).toMatchObject({
      apiId: API,
      keyId: ['key_checkout', 'key_search'],
      tag: ['env:prod'],
    });
    expect(s.queries?.series.groupBy).toEqual(['day']);
    const totals = await expectPageMatchesApi(page, s);
    expect(totals.total).toBeGreaterThan(0);
    expect(totals.total).toBeLessThan(SEEDED);
    expect(s.top?.keys.map((k) => k.label).sort()).toEqual(['key_checkout', 'key_search']);

    const shared = page.url();
    expect(new URL(shared).hash).toBe(
      '#apiId=api_shop&granularity=day&keyId=key_checkout&keyId=key_search&tag=env%3Aprod&refresh=5',
    );
    // Another tab: the link carries the view but not the key.
    const other = await chromium.context.newPage();
    await other.goto(shared);
    expect(await other.isVisible('#sign-in')).toBe(true);
    const again = await signIn(other, rootKey);
    expect(again.view).toEqual(s.view);
    expect(await other.inputValue('#filters input[name=keyIds]')).toBe('key_checkout, key_search');
    await expectPageMatchesApi(other, again);
    await other.close();
  });

  it('#45: offers the APIs the root key may read, shows the first without asking, and switches on a pick', async () => {
    const tab = await chromium.context.newPage();
    await tab.goto(`${stack.t.queryUrl}/dashboard#refresh=5`); // a first-time user: no API in the link
    const s = await signIn(tab, rootKey);
    expect(s.apis).toEqual(['api_other', API]); // GET /v1/apis.list: ws_1's APIs, sorted
    const options = () =>
      tab.$$eval('#filters select[name=apiId] option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(await options()).toEqual(['api_other', API]);
    expect(await tab.inputValue('#filters select[name=apiId]')).toBe('api_other');
    expect(s.queries?.totals.apiId).toBe('api_other');
    expect(new URL(tab.url()).hash).toBe('#apiId=api_other&refresh=5');
    expect((await expectPageMatchesApi(tab, s)).total).toBe(300);

    const before = s.refreshes;
    await tab.selectOption('#filters select[name=apiId]', API);
    await tab.waitForFunction(
      (n) => window.__dashboard.refreshes > n && window.__dashboard.queries?.totals.apiId === 'api_shop',
      before,
      { timeout: scaled(60_000) },
    );
    const picked = await state(tab);
    expect(picked.error).toBeUndefined();
    expect(new URL(tab.url()).hash).toBe(`#apiId=${API}&refresh=5`);
    expect((await expectPageMatchesApi(tab, picked)).total).toBeGreaterThanOrEqual(SEEDED);
    await tab.close();
  });

  it('picks up new events by itself at the refresh interval', async () => {
    const s = await state(page);
    const before = s.totals!.total;
    const now = Date.now();
    const fresh: VerificationEvent[] = Array.from({ length: 40 }, (_, i) => ({
      requestId: `fresh-${i}`,
      time: now - i * 1000,
      workspaceId: 'ws_1',
      apiId: API,
      keyId: 'key_checkout',
      outcome: i % 4 === 0 ? 'RATE_LIMITED' : 'VALID',
      tags: ['env:prod'],
    }));
    await stack.produce(fresh);
    await stack.waitForTotal(API, SEEDED + fresh.length, rootKey);
    // No click: the page's own 5 s refresh must draw the new total (a refresh may land mid-ingest first).
    const expected = before + fresh.length;
    await page.waitForFunction((n) => window.__dashboard.totals?.total === n, expected, {
      timeout: scaled(60_000),
    });
    const after = await state(page);
    await expectPageMatchesApi(page, after);
    expect(await page.textContent('#updated')).toMatch(/^Updated \d\d:\d\d:\d\d UTC$/);
    await screenshot(page, 'dashboard-filtered');
  });

  it("opens with a read token: that end user's view only, on the page and through the API", async () => {
    const minter = stack.client(await stack.rootKey(['api.*.create_read_token'], 'ws_1'));
    const { token, externalId } = await minter.createReadToken({ apiId: API, externalId: 'globex' });
    expect(externalId).toBe('globex');
    const tokenClient = stack.client(token);

    // The link asks for another API and another end user: the token's scope wins.
    const tab = await chromium.context.newPage();
    await tab.goto(`${stack.t.queryUrl}/dashboard#apiId=api_other&externalId=acme&refresh=5`);
    const s = await signIn(tab, token);
    expect(s.mode).toBe('readToken');
    for (const q of Object.values(s.queries!)) expect(q).toMatchObject({ apiId: API, externalId: 'globex' });
    expect(await tab.isDisabled('#filters select[name=apiId]')).toBe(true);
    expect(s.apis).toEqual([API]); // a read token has its one API: nothing to pick
    expect(
      await tab.$$eval('#filters select[name=apiId] option', (os) => os.map((o) => o.textContent)),
    ).toEqual([API]);
    expect(await tab.isDisabled('#filters input[name=externalId]')).toBe(true);
    expect(await tab.textContent('#who')).toContain('End-user view: globex on api_shop');

    // What the page shows is what the API answers with the token, and what a root key sees for globex.
    const totals = await expectPageMatchesApi(tab, s, tokenClient);
    const asRoot = (await client.getVerifications({ ...s.queries!.totals, externalId: 'globex' }))
      .datapoints[0];
    expect(totals).toEqual(asRoot);
    expect(totals.total).toBeGreaterThan(0);
    expect(s.top?.identities.map((r) => r.label)).toEqual(['globex (id_globex)']);

    // No other identity anywhere on the page.
    const text = (await tab.textContent('body')) ?? '';
    for (const other of ['acme', 'id_acme', 'initech', 'id_initech']) expect(text).not.toContain(other);
    expect(tab.url()).not.toContain(token);

    // Called directly, the token reads globex on api_shop and nothing else: never data for another scope.
    const { datapoints: identities } = await tokenClient.getVerifications({
      apiId: API,
      externalId: 'globex',
      start: 0,
      groupBy: ['identity'],
    });
    expect(identities.map((r) => r.identity?.externalId)).toEqual(['globex']);
    for (const query of [
      { apiId: API, externalId: 'acme', start: 0 },
      { apiId: 'api_other', externalId: 'globex', start: 0 },
    ]) {
      const refused = await tokenClient.getVerifications(query).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, JSON.stringify(query)).toBeInstanceOf(ApiError);
      expect([403, 404], JSON.stringify(query)).toContain((refused as ApiError).status);
    }
    await screenshot(tab, 'dashboard-end-user');
    await tab.close();
  });
});

/**
 * The dashboard's live updates in real Chromium against the real stack (Kafka → ingest worker → Redis →
 * query service, which serves the page): signed in with a root key and a refresh interval of 5 minutes, the
 * page opens the service's stream; an event produced while it is open shows up without a reload and
 * without waiting for the interval, because the stream's answer changed (docs/dashboard.md
 * "Near-real-time"). The service reads stream queries again only on the worker's change signal here.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerificationEvent } from '@va/contracts';
import { ensureDashboardBuilt, type DashboardDebug } from '@va/dashboard';
import { launchChromium, type Chromium } from '@va/testkit/browser';
import { scaled } from '@va/testkit/time';
import { startStack, type Stack } from './stack';

const API = 'api_live';
let stack: Stack;
let chromium: Chromium;
let rootKey: string;
let n = 0;

const events = (count: number): VerificationEvent[] =>
  Array.from({ length: count }, () => ({
    requestId: `live-${n++}`,
    time: Date.now() - 60_000,
    workspaceId: 'ws_1',
    apiId: API,
    keyId: 'key_live',
    outcome: 'VALID',
  }));

beforeAll(async () => {
  await ensureDashboardBuilt({ quiet: true }); // before the query service starts: it serves dist/
  stack = await startStack('dashboard live', { QUERY_STREAM_REFRESH_MS: '3600000' });
  await stack.registerApi(API, 'ws_1');
  rootKey = await stack.rootKey(['api.*.read_api'], 'ws_1');
  await stack.produce(events(5));
  await stack.waitForTotal(API, 5, rootKey);
  chromium = await launchChromium();
}, 300_000);

afterAll(async () => {
  await chromium?.close();
  await stack?.stop();
});

const state = (page: Page): Promise<DashboardDebug> => page.evaluate(() => window.__dashboard);

describe('the dashboard, live', () => {
  it('shows an event produced while it is open, through the stream, without a reload', async () => {
    const page = await chromium.context.newPage();
    await page.goto(`${stack.t.queryUrl}/dashboard#apiId=${API}&refresh=300`);
    await page.fill('#secret', rootKey);
    await page.click('#sign-in-form button[type=submit]');
    await page.waitForFunction(
      () => window.__dashboard.live === 'stream' && window.__dashboard.totals,
      null,
      {
        timeout: scaled(60_000),
      },
    );
    const before = await state(page);
    expect(before.totals?.total).toBe(5);
    expect(await page.textContent('#countdown')).toMatch(/^live · next in \d+ s$/);
    // A mark on the page's window: a reload would lose it.
    await page.evaluate(() => Object.assign(window, { __notReloaded: true }));

    const producedAt = Date.now();
    await stack.produce(events(3));
    await page.waitForFunction(() => window.__dashboard.totals?.total === 8, null, {
      timeout: scaled(60_000),
    });
    const shownAfterMs = Date.now() - producedAt;
    const after = await state(page);
    expect(after.streamUpdates).toBeGreaterThanOrEqual(1);
    expect(after.live).toBe('stream');
    expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(
      true,
    );
    // The 5-minute countdown has not run out: the refresh came from the stream.
    expect(after.refreshes).toBeGreaterThan(before.refreshes);
    console.log(`dashboard live: produced to shown in ${shownAfterMs} ms`);
    await page.close();
  }, 180_000);
});

/**
 * Real Chromium for browser tests and screenshots: Debian's `chromium` (infra/lib/install.mjs
 * ensureChromium installs it), driven by playwright-core — never a browser downloaded by Playwright.
 * Every launch gets a fresh profile folder, removed on close.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { scaled } from './time.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox', // we run as root in containers, where Chromium's sandbox cannot start
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh --user-data-dir (playwright's persistent context owns that flag). */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Chromium> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `${CHROMIUM_PATH} is missing: npm test installs it (infra/lib/install.mjs ensureChromium)`,
    );
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'va-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  // Playwright's own default (30 s for every wait, click and navigation), times TEST_TIME_SCALE.
  context.setDefaultTimeout(scaled(30_000));
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

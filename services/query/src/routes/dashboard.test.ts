/** GET /dashboard/: the built page as static files, with its security headers; 503 when not built. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@va/config';
import type { App } from '../http/app';
import { createServer } from '../server';

// Never connected: these routes do not touch Redis.
const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true });
const config = loadConfig({});
let dist: string;
let app: App;

beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'va-dashboard-dist-'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(dist, 'app.js'), 'console.log(1)');
  app = await createServer({ redis, config, dashboardDir: dist });
});

afterAll(async () => {
  await app.close();
  redis.disconnect();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('GET /dashboard', () => {
  it('serves index.html at /dashboard/ with a strict CSP, and redirects /dashboard there', async () => {
    const page = await app.inject({ method: 'GET', url: '/dashboard/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<title>t</title>');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');

    const redirect = await app.inject({ method: 'GET', url: '/dashboard' });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('dashboard/');
  });

  it('serves the bundle and nothing outside its folder', async () => {
    const js = await app.inject({ method: 'GET', url: '/dashboard/app.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toContain('javascript');
    const outside = await app.inject({ method: 'GET', url: '/dashboard/..%2f..%2fetc%2fpasswd' });
    expect(outside.statusCode).toBe(404);
    expect(outside.json()).toMatchObject({ error: { status: 404 } });
  });

  it('answers 503 saying to build when the page was never built', async () => {
    const unbuilt = await createServer({ redis, config, dashboardDir: path.join(dist, 'missing') });
    try {
      const response = await unbuilt.inject({ method: 'GET', url: '/dashboard/' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({
        error: { status: 503, detail: expect.stringContaining('npm run build') },
      });
    } finally {
      await unbuilt.close();
    }
  });
});

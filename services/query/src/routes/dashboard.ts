/**
 * GET /dashboard/: the dashboard page (apps/dashboard, built into its dist/ folder), as static files.
 * The files hold no data and need no key: the page asks for a root key or read token and sends it to
 * the API itself. A strict Content-Security-Policy keeps the page to its own scripts and to this origin,
 * since it holds a secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { dashboardDist } from '@va/dashboard';
import type { App } from '../http/app';
import { sendFailure } from '../http/error-handling';

export const DASHBOARD_PREFIX = '/dashboard/';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // uPlot sizes its canvas and legend through style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function dashboardRoute(app: App, docsUrl: string, dist = dashboardDist): Promise<void> {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    // A checkout that was never built: say so instead of a bare 404.
    app.get('/dashboard*', { schema: { hide: true } }, (request, reply) =>
      sendFailure(docsUrl, request, reply, {
        kind: 'internal_server_error',
        status: 503,
        detail: 'The dashboard is not built: run `npm run build`.',
      }),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: dist,
    prefix: DASHBOARD_PREFIX,
    decorateReply: false,
    schemaHide: true,
    cacheControl: false,
    setHeaders: (res) => {
      res.setHeader('content-security-policy', CSP);
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      // Rebuilt files keep their names: let browsers revalidate instead of caching stale bundles.
      res.setHeader('cache-control', 'no-cache');
    },
  });
  // The page's assets are relative to /dashboard/; a relative Location keeps a proxy's path prefix.
  app.get('/dashboard', { schema: { hide: true } }, (_request, reply) => reply.redirect('dashboard/'));
}

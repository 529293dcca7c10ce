import { Type } from '@sinclair/typebox';
import type { App } from '../http/app';

/**
 * The probes (docs/deploy.md, "Probes, metrics and access log"), on the public port as on the internal one:
 * GET /livez is 200 while the process runs and its event loop answers (restart it when not); GET /readyz is 200
 * when it can serve queries, 503 otherwise (send it no traffic); GET /health is /readyz by its older name.
 */
export function healthRoute(app: App, ready: () => Promise<boolean>): void {
  const Health = Type.Object({ ok: Type.Boolean() });
  const schema = (summary: string) => ({ summary, response: { 200: Health, 503: Health } });
  app.get('/livez', { schema: schema('Liveness: the process runs') }, async () => ({ ok: true }));
  for (const [url, summary] of [
    ['/readyz', 'Readiness: Redis answers'],
    ['/health', 'Readiness (alias of /readyz)'],
  ] as const) {
    app.get(url, { schema: schema(summary) }, async (_request, reply) => {
      const ok = await ready().catch(() => false);
      return reply.code(ok ? 200 : 503).send({ ok });
    });
  }
}

import { Type } from '@sinclair/typebox';
import type { App } from '../http/app';

/** GET /health: 200 once the service can serve (Redis connected, scripts defined), 503 before. */
export function healthRoute(app: App, ready: () => boolean): void {
  const Health = Type.Object({ ok: Type.Boolean() });
  app.get(
    '/health',
    { schema: { summary: 'Readiness', response: { 200: Health, 503: Health } } },
    async (_request, reply) => {
      const ok = ready();
      return reply.code(ok ? 200 : 503).send({ ok });
    },
  );
}

/** Prometheus metrics of the query route and the /metrics endpoint. */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { App } from './app';

export function registerMetrics(app: App, registry: Registry, route: string): void {
  const requests = new Counter({
    name: 'va_query_requests_total',
    help: 'Requests of GET /v1/analytics.getVerifications by HTTP status',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'va_query_duration_seconds',
    help: 'Time to answer GET /v1/analytics.getVerifications',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url !== route) return;
    requests.inc({ status: String(reply.statusCode) });
    duration.observe(reply.elapsedTime / 1000);
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
}

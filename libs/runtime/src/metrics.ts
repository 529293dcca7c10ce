import { createServer, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** A registry with the process metrics every service exports. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * A tiny HTTP server for a service's internal port (ingest and compactor have no other; the query service keeps
 * its metrics off its public port): GET /metrics in Prometheus text format; the probes GET /livez (200 while the
 * process answers), GET /readyz and its alias GET /health (200 or 503 from `ready`).
 */
export async function serveMetrics(
  registry: Registry,
  port: number,
  ready: () => boolean | Promise<boolean> = () => true,
  host = '0.0.0.0',
): Promise<Server> {
  const probe = (res: ServerResponse, ok: boolean) =>
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }));
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (path === '/livez') {
      probe(res, true);
    } else if (path === '/readyz' || path === '/health') {
      Promise.resolve()
        .then(ready)
        .then(
          (ok) => probe(res, ok),
          () => probe(res, false),
        );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

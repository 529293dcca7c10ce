import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** A registry with the process metrics every service exports. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * A tiny HTTP server for services without their own (ingest, compactor): GET /metrics
 * in Prometheus text format, GET /health from the given probe.
 */
export async function serveMetrics(
  registry: Registry,
  port: number,
  healthy: () => boolean = () => true,
  host = '0.0.0.0',
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (req.url === '/health') {
      const ok = healthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok }));
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

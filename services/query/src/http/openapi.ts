/**
 * The OpenAPI 3.1 document (/openapi.json) and its docs page (/docs), generated from the route
 * schemas. Register before the routes: @fastify/swagger collects them as they are added.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ApiList, CreateReadTokenRequest, Datapoint, ErrorEnvelope, ReadToken } from '@va/contracts';
import type { App } from './app';

export async function registerOpenApi(app: App, docsUrl: string): Promise<void> {
  app.addSchema(Datapoint);
  app.addSchema(ErrorEnvelope);
  app.addSchema(CreateReadTokenRequest);
  app.addSchema(ReadToken);
  app.addSchema(ApiList);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Verification analytics',
        description:
          'Exact counts of API-key verifications for dashboards, reports and usage-based billing. ' +
          `Errors use one envelope; error.type is ${docsUrl}/<kind>.`,
        version: '1.0.0',
      },
      components: {
        securitySchemes: {
          rootKey: { type: 'http', scheme: 'bearer', description: 'A root key of the workspace.' },
          readToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'A read token from createReadToken: one API and one externalId, until it expires.',
          },
        },
      },
      security: [{ rootKey: [] }],
    },
    // Keep the $id of shared schemas as their component names (Datapoint, ErrorEnvelope).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

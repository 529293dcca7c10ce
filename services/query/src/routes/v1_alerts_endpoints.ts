/**
 * POST /v1/alerts.createEndpoint, GET /v1/alerts.listEndpoints, POST /v1/alerts.deleteEndpoint
 * (docs/alerts.md "Webhook endpoints"). Endpoints belong to the workspace and may receive the crossings
 * of any of its APIs, so they need api.*.manage_alerts. The secret is answered once, at creation.
 * Order: 401 -> 400 -> 403 -> 404 (no such endpoint in the workspace).
 */
import { Type } from '@sinclair/typebox';
import {
  CreateAlertEndpointRequest,
  DeleteAlertEndpointRequest,
  MAX_ALERT_ENDPOINTS,
  type AlertDeleted,
  type AlertEndpointList,
  type CreatedAlertEndpoint,
} from '@va/contracts';
import {
  countAlertEndpoints,
  createAlertEndpoint,
  deleteAlertEndpoint,
  newEndpointId,
  newWebhookSecret,
  publicEndpoint,
  readAlertEndpoints,
} from '@va/store';
import { canManageEndpoints, MANAGE_ANY_ALERTS } from '../auth/alert-permissions';
import { ApiError } from '../http/api-error';
import type { App } from '../http/app';
import {
  ERRORS_4XX,
  errorResponse,
  parseBody,
  parseQuery,
  rootKeyAuth,
  type AlertRouteDeps,
  type RootKey,
} from '../alerts/route-kit';

export const CREATE_ENDPOINT = '/v1/alerts.createEndpoint';
export const LIST_ENDPOINTS = '/v1/alerts.listEndpoints';
export const DELETE_ENDPOINT = '/v1/alerts.deleteEndpoint';

const NoQuery = Type.Object({}, { additionalProperties: false });

const ref = <T>(id: string, description: string) => Type.Unsafe<T>({ ...Type.Ref(id), description });

function checkPermission(key: RootKey): void {
  if (!canManageEndpoints(key.permissions)) {
    throw new ApiError(
      'forbidden',
      `The root key lacks the permission to manage webhook endpoints: it needs ${MANAGE_ANY_ALERTS} (an endpoint may receive the alerts of every API of the workspace).`,
    );
  }
}

/** What a webhook may be sent to: an http(s) URL without credentials in it (they would end up in logs). */
function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (url.hostname === '') return 'has no host';
  return null;
}

export function alertEndpointRoutes(app: App, deps: AlertRouteDeps): void {
  const auth = rootKeyAuth(deps);
  const prefix = deps.config.keyPrefix;
  const common = { security: [{ rootKey: [] }] };
  const errors = {
    '4xx': errorResponse(ERRORS_4XX),
    '5xx': errorResponse('500 internal_server_error'),
  };

  app.post(
    CREATE_ENDPOINT,
    {
      schema: {
        ...common,
        operationId: 'createAlertEndpoint',
        summary: 'Register a webhook endpoint',
        description:
          'Crossings of the rules named (all rules of the workspace without ruleIds) are POSTed to the URL, ' +
          'signed as the Standard Webhooks spec says with the secret of this answer, which is never shown ' +
          `again. Needs ${MANAGE_ANY_ALERTS}. At most ${MAX_ALERT_ENDPOINTS} endpoints per workspace.`,
        body: Type.Ref('CreateAlertEndpointRequest'),
        response: {
          200: ref<CreatedAlertEndpoint>('CreatedAlertEndpoint', 'The endpoint and its secret (shown once).'),
          ...errors,
        },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request, reply) => {
      const body = parseBody(CreateAlertEndpointRequest, request.body);
      const problem = urlProblem(body.url);
      if (problem !== null) {
        throw new ApiError('invalid_input', 'The request body is not valid; see errors.', [
          {
            location: 'body.url',
            message: problem,
            fix: 'send an http or https URL, e.g. https://hooks.example.com/usage',
          },
        ]);
      }
      const key = auth.rootKey(request);
      checkPermission(key);
      if ((await countAlertEndpoints(deps.redis, prefix, key.workspaceId)) >= MAX_ALERT_ENDPOINTS) {
        throw new ApiError('invalid_input', 'The workspace has as many endpoints as it may have.', [
          {
            location: 'body.url',
            message: `the workspace has ${MAX_ALERT_ENDPOINTS} endpoints, the most it may have`,
            fix: 'delete endpoints it no longer needs',
          },
        ]);
      }
      const endpoint = {
        endpointId: newEndpointId(),
        url: body.url,
        ...(body.ruleIds && { ruleIds: body.ruleIds }),
        createdAt: deps.now(),
        secret: newWebhookSecret(),
      };
      await createAlertEndpoint(deps.redis, prefix, key.workspaceId, endpoint);
      reply.header('cache-control', 'no-store');
      return endpoint satisfies CreatedAlertEndpoint;
    },
  );

  app.get(
    LIST_ENDPOINTS,
    {
      schema: {
        ...common,
        operationId: 'listAlertEndpoints',
        summary: "The workspace's webhook endpoints",
        description: `Oldest first, without their secrets. Needs ${MANAGE_ANY_ALERTS}. Takes no parameters.`,
        response: { 200: ref<AlertEndpointList>('AlertEndpointList', 'The endpoints.'), ...errors },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request, reply) => {
      parseQuery(NoQuery, request.raw.url);
      const key = auth.rootKey(request);
      checkPermission(key);
      const endpoints = await readAlertEndpoints(deps.redis, prefix, key.workspaceId);
      reply.header('cache-control', 'no-store');
      return { endpoints: endpoints.map(publicEndpoint) } satisfies AlertEndpointList;
    },
  );

  app.post(
    DELETE_ENDPOINT,
    {
      schema: {
        ...common,
        operationId: 'deleteAlertEndpoint',
        summary: 'Delete a webhook endpoint',
        description:
          'No webhook is sent to it any more, retries and queued ones included (they are logged as dropped). ' +
          '404 when the workspace has no such endpoint.',
        body: Type.Ref('DeleteAlertEndpointRequest'),
        response: { 200: ref<AlertDeleted>('AlertDeleted', 'Deleted.'), ...errors },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request) => {
      const { endpointId } = parseBody(DeleteAlertEndpointRequest, request.body);
      const key = auth.rootKey(request);
      checkPermission(key);
      if (!(await deleteAlertEndpoint(deps.redis, prefix, key.workspaceId, endpointId))) {
        throw new ApiError('not_found', `The workspace has no endpoint ${endpointId}.`);
      }
      return { deleted: true } satisfies AlertDeleted;
    },
  );
}

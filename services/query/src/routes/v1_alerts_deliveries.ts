/**
 * GET /v1/alerts.listDeliveries?apiId=&alertId=&limit= : the API's delivery log, newest first
 * (docs/alerts.md "Delivery log"). Permission as for the API's rules. Order: 401 -> 400 -> 403 -> 404.
 */
import { ListDeliveriesQuery, type DeliveryList } from '@va/contracts';
import { apiWorkspace, listDeliveryAttempts } from '@va/store';
import { Type } from '@sinclair/typebox';
import { canManageAlerts, MANAGE_ANY_ALERTS, manageAlertsPermission } from '../auth/alert-permissions';
import { ApiError } from '../http/api-error';
import type { App } from '../http/app';
import { ERRORS_4XX, errorResponse, parseQuery, rootKeyAuth, type AlertRouteDeps } from '../alerts/route-kit';

export const LIST_DELIVERIES = '/v1/alerts.listDeliveries';
const DEFAULT_LIMIT = 100;

export function alertDeliveryRoutes(app: App, deps: AlertRouteDeps): void {
  const auth = rootKeyAuth(deps);
  app.get(
    LIST_DELIVERIES,
    {
      schema: {
        security: [{ rootKey: [] }],
        operationId: 'listAlertDeliveries',
        summary: 'The delivery log of an API',
        description:
          'Webhook attempts of the API (the last 10,000), newest first, those of one alert with alertId. ' +
          `Needs ${MANAGE_ANY_ALERTS} or api.<apiId>.manage_alerts.`,
        querystring: ListDeliveriesQuery,
        response: {
          200: Type.Unsafe<DeliveryList>({ ...Type.Ref('DeliveryList'), description: 'The attempts.' }),
          '4xx': errorResponse(ERRORS_4XX),
          '5xx': errorResponse('500 internal_server_error'),
        },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request, reply) => {
      const query = parseQuery(ListDeliveriesQuery, request.raw.url, ['limit']);
      const key = auth.rootKey(request);
      if (!canManageAlerts(key.permissions, query.apiId)) {
        throw new ApiError(
          'forbidden',
          `The root key lacks the permission to read the delivery log of this API: it needs ${MANAGE_ANY_ALERTS} or ${manageAlertsPermission(query.apiId)}.`,
        );
      }
      if ((await apiWorkspace(deps.redis, deps.config.keyPrefix, query.apiId)) !== key.workspaceId) {
        throw new ApiError(
          'not_found',
          `The API ${query.apiId} does not exist in the workspace of this root key.`,
        );
      }
      const deliveries = await listDeliveryAttempts(deps.redis, deps.config.keyPrefix, query.apiId, {
        ...(query.alertId !== undefined && { alertId: query.alertId }),
        limit: query.limit ?? DEFAULT_LIMIT,
      });
      reply.header('cache-control', 'no-store');
      return { deliveries } satisfies DeliveryList;
    },
  );
}

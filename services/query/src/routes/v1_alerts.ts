/**
 * The /v1/alerts.* routes (docs/alerts.md): rules, webhook endpoints, the delivery log. Their shared
 * schemas join the OpenAPI document's components here, beside the routes that use them.
 */
import {
  AlertDeleted,
  AlertEndpoint,
  AlertEndpointList,
  AlertRule,
  AlertRuleList,
  CreateAlertEndpointRequest,
  CreateAlertRuleRequest,
  CreatedAlertEndpoint,
  DeleteAlertEndpointRequest,
  DeleteAlertRuleRequest,
  DeliveryAttempt,
  DeliveryList,
} from '@va/contracts';
import type { App } from '../http/app';
import type { AlertRouteDeps } from '../alerts/route-kit';
import { alertDeliveryRoutes } from './v1_alerts_deliveries';
import { alertEndpointRoutes } from './v1_alerts_endpoints';
import { alertRuleRoutes } from './v1_alerts_rules';

export function alertRoutes(app: App, deps: AlertRouteDeps): void {
  for (const schema of [
    AlertRule,
    AlertRuleList,
    CreateAlertRuleRequest,
    DeleteAlertRuleRequest,
    AlertDeleted,
    AlertEndpoint,
    AlertEndpointList,
    CreateAlertEndpointRequest,
    CreatedAlertEndpoint,
    DeleteAlertEndpointRequest,
    DeliveryAttempt,
    DeliveryList,
  ]) {
    app.addSchema(schema);
  }
  alertRuleRoutes(app, deps);
  alertEndpointRoutes(app, deps);
  alertDeliveryRoutes(app, deps);
}

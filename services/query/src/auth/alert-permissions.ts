/**
 * Which permission lets a root key manage alerts (docs/api.md#alerts). Pure. Rules and the delivery log
 * are per API (api.<apiId>.manage_alerts or api.*.manage_alerts); webhook endpoints belong to the
 * workspace and may receive the crossings of any of its APIs, so they need api.*.manage_alerts.
 */
export const MANAGE_ANY_ALERTS = 'api.*.manage_alerts';
export const manageAlertsPermission = (apiId: string): string => `api.${apiId}.manage_alerts`;

export function canManageAlerts(permissions: readonly string[], apiId: string): boolean {
  const specific = manageAlertsPermission(apiId);
  return permissions.some((p) => p === MANAGE_ANY_ALERTS || p === specific);
}

export const canManageEndpoints = (permissions: readonly string[]): boolean =>
  permissions.includes(MANAGE_ANY_ALERTS);

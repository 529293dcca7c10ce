/** Which permission lets a root key read an API (docs/api.md#auth). Pure. */
export const READ_ANY_API = 'api.*.read_api';
export const readApiPermission = (apiId: string): string => `api.${apiId}.read_api`;

export function canReadApi(permissions: readonly string[], apiId: string): boolean {
  const specific = readApiPermission(apiId);
  return permissions.some((p) => p === READ_ANY_API || p === specific);
}

/** Of the workspace's APIs, those the permissions let a root key read, in the given order. */
export function readableApis(permissions: readonly string[], workspaceApiIds: readonly string[]): string[] {
  return workspaceApiIds.filter((apiId) => canReadApi(permissions, apiId));
}

/**
 * POST /v1/alerts.createRule, GET /v1/alerts.listRules, POST /v1/alerts.deleteRule (docs/alerts.md "Rules").
 * A root key with api.<apiId>.manage_alerts or api.*.manage_alerts manages the rules of the APIs of its
 * workspace. Order: 401 -> 400 -> 403 (a read token, a missing permission) -> 404 (the API is not in the
 * key's workspace, or the rule is not the API's).
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import {
  CreateAlertRuleRequest,
  DeleteAlertRuleRequest,
  MAX_ALERT_RULES_PER_API,
  type AlertDeleted,
  type AlertRule,
  type AlertRuleList,
} from '@va/contracts';
import { identifier } from '@va/contracts';
import { timeZoneErrors, zoneNameOf } from '@va/core';
import {
  apiTimeZone,
  apiWorkspace,
  countAlertRules,
  createAlertRule,
  deleteAlertRule,
  readAlertRules,
} from '@va/store';
import { canManageAlerts, MANAGE_ANY_ALERTS, manageAlertsPermission } from '../auth/alert-permissions';
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

export const CREATE_RULE = '/v1/alerts.createRule';
export const LIST_RULES = '/v1/alerts.listRules';
export const DELETE_RULE = '/v1/alerts.deleteRule';

const ListRulesQuery = Type.Object(
  { apiId: identifier('The API whose rules are listed.') },
  { additionalProperties: false },
);

const ref = <T>(id: string, description: string) => Type.Unsafe<T>({ ...Type.Ref(id), description });

/** 403 without the permission, then 404 unless the API is the key's workspace's. */
async function checkApiAccess(deps: AlertRouteDeps, key: RootKey, apiId: string): Promise<void> {
  if (!canManageAlerts(key.permissions, apiId)) {
    throw new ApiError(
      'forbidden',
      `The root key lacks the permission to manage the alerts of this API: it needs ${MANAGE_ANY_ALERTS} or ${manageAlertsPermission(apiId)}.`,
    );
  }
  if ((await apiWorkspace(deps.redis, deps.config.keyPrefix, apiId)) !== key.workspaceId) {
    throw new ApiError('not_found', `The API ${apiId} does not exist in the workspace of this root key.`);
  }
}

export function alertRuleRoutes(app: App, deps: AlertRouteDeps): void {
  const auth = rootKeyAuth(deps);
  const prefix = deps.config.keyPrefix;
  const common = { security: [{ rootKey: [] }] };
  const errors = {
    '4xx': errorResponse(ERRORS_4XX),
    '5xx': errorResponse('500 internal_server_error'),
  };

  app.post(
    CREATE_RULE,
    {
      schema: {
        ...common,
        operationId: 'createAlertRule',
        summary: 'Create an alert rule',
        description:
          'Watch a count of an API (the whole API, one identity, one key, or each identity or key) per day ' +
          "or month of the rule's timeZone (absent: the API's default zone, stored on the rule); every level it " +
          'reaches is one crossing, sent as a signed webhook to the endpoints ' +
          `subscribed to the rule. Needs ${MANAGE_ANY_ALERTS} or api.<apiId>.manage_alerts. At most ` +
          `${MAX_ALERT_RULES_PER_API} rules per API.`,
        body: Type.Ref('CreateAlertRuleRequest'),
        response: { 200: ref<AlertRule>('AlertRule', 'The new rule.'), ...errors },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request, reply) => {
      const body = parseBody(CreateAlertRuleRequest, request.body);
      const zoneErrors = timeZoneErrors(body.timeZone, 'body.timeZone');
      if (zoneErrors.length > 0)
        throw new ApiError('invalid_input', 'The request body is not valid; see errors.', zoneErrors);
      const key = auth.rootKey(request);
      await checkApiAccess(deps, key, body.apiId);
      if ((await countAlertRules(deps.redis, prefix, body.apiId)) >= MAX_ALERT_RULES_PER_API) {
        throw new ApiError('invalid_input', 'The API has as many rules as it may have.', [
          {
            location: 'body.apiId',
            message: `has ${MAX_ALERT_RULES_PER_API} rules, the most an API may have`,
            fix: 'delete rules it no longer needs',
          },
        ]);
      }
      const rule: AlertRule = {
        ruleId: `rule_${randomBytes(12).toString('hex')}`,
        apiId: body.apiId,
        scope: body.scope,
        ...(body.outcomes && { outcomes: body.outcomes }),
        ...(body.tags && { tags: body.tags }),
        period: body.period,
        // The zone is resolved now and kept: detection, a restarted worker and a rebuild all count the same
        // periods, whatever the API's default becomes later.
        timeZone:
          body.timeZone === undefined
            ? await apiTimeZone(deps.redis, prefix, body.apiId)
            : zoneNameOf(body.timeZone),
        levels: [...body.levels].sort((a, b) => a - b),
        createdAt: deps.now(),
      };
      await createAlertRule(deps.redis, prefix, rule);
      reply.header('cache-control', 'no-store');
      return rule;
    },
  );

  app.get(
    LIST_RULES,
    {
      schema: {
        ...common,
        operationId: 'listAlertRules',
        summary: "An API's alert rules",
        description: `The rules of one API, oldest first. Needs ${MANAGE_ANY_ALERTS} or api.<apiId>.manage_alerts.`,
        querystring: ListRulesQuery,
        response: { 200: ref<AlertRuleList>('AlertRuleList', 'The rules.'), ...errors },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request, reply) => {
      const { apiId } = parseQuery(ListRulesQuery, request.raw.url);
      await checkApiAccess(deps, auth.rootKey(request), apiId);
      const { rules } = await readAlertRules(deps.redis, prefix, apiId);
      reply.header('cache-control', 'no-store');
      return { rules } satisfies AlertRuleList;
    },
  );

  app.post(
    DELETE_RULE,
    {
      schema: {
        ...common,
        operationId: 'deleteAlertRule',
        summary: 'Delete an alert rule',
        description:
          'The rule detects no more crossings; crossings already detected are still delivered. Endpoints that ' +
          'name the rule keep its id, which then matches nothing. 404 when the API has no such rule.',
        body: Type.Ref('DeleteAlertRuleRequest'),
        response: { 200: ref<AlertDeleted>('AlertDeleted', 'Deleted.'), ...errors },
      },
      validatorCompiler: () => () => true,
      onRequest: auth.onRequest,
    },
    async (request) => {
      const { apiId, ruleId } = parseBody(DeleteAlertRuleRequest, request.body);
      await checkApiAccess(deps, auth.rootKey(request), apiId);
      if (!(await deleteAlertRule(deps.redis, prefix, apiId, ruleId))) {
        throw new ApiError('not_found', `The API ${apiId} has no rule ${ruleId}.`);
      }
      return { deleted: true } satisfies AlertDeleted;
    },
  );
}

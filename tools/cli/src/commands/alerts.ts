/**
 * `alerts …` (docs/alerts.md): rules, endpoints and the delivery log through the query service with a
 * root key (ANALYTICS_TOKEN or --token-stdin); `alerts replay` through Redis (@va/compactor replayAlerts).
 * Options: ../program/alerts.ts. Answers print as short lines, or as the API's JSON with --json.
 */
import { AnalyticsClientError, ApiError, createClient, type AnalyticsClient } from '@va/client';
import { ALERT_ID_PATTERN, type AlertRule, type AlertScope, type Outcome } from '@va/contracts';
import { loadConfig } from '@va/config';
import { UsageError } from '../usage-error';
import { analyticsToken, type TokenSource } from './secret-input';
import { timeZoneOption } from './time-zone-option';
import { withRedis } from './with-redis';

interface ServiceOptions extends TokenSource {
  url?: string | undefined;
  json?: boolean | undefined;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

/** Runs a call of the query service; its failures are one line on stderr and exit 1. */
async function withClient(
  options: ServiceOptions,
  call: (client: AnalyticsClient) => Promise<unknown>,
  print: (answer: never) => void,
): Promise<number> {
  const config = loadConfig();
  const token = await analyticsToken(options, config.analyticsToken);
  const client = createClient({ baseUrl: options.url ?? config.queryUrl, token });
  try {
    const answer = await call(client);
    if (options.json) out(JSON.stringify(answer));
    else print(answer as never);
    return 0;
  } catch (err) {
    if (!(err instanceof AnalyticsClientError)) throw err;
    process.stderr.write(`alerts: ${err.message}\n`);
    if (err instanceof ApiError) {
      for (const e of err.errors) process.stderr.write(`  ${e.location}: ${e.message}\n`);
      process.stderr.write(`request id: ${err.requestId ?? 'none'}\n`);
    }
    return 1;
  }
}

const scopeText = (scope: AlertScope): string =>
  scope.kind === 'identity'
    ? `identity ${scope.externalId}`
    : scope.kind === 'key'
      ? `key ${scope.keyId}`
      : scope.kind;
const ruleLine = (rule: AlertRule): string =>
  [
    rule.ruleId,
    scopeText(rule.scope),
    `${rule.period} ${rule.timeZone ?? 'UTC'}`,
    `levels ${rule.levels.join(',')}`,
    rule.outcomes ? `outcomes ${rule.outcomes.join(',')}` : 'all outcomes',
    ...(rule.tags ? [`tags ${rule.tags.join(',')}`] : []),
  ].join('  ');

export interface CreateRuleOptions extends ServiceOptions {
  api: string;
  scope: 'api' | 'identity' | 'key' | 'each-identity' | 'each-key';
  externalId?: string | undefined;
  keyId?: string | undefined;
  outcome?: Outcome[] | undefined;
  tag?: string[] | undefined;
  period: 'day' | 'month';
  timeZone?: string | undefined;
  level: number[];
}

function scopeOf(options: CreateRuleOptions): AlertScope {
  const needs = (flag: string, value: string | undefined, kind: string): string => {
    if (value === undefined) throw new UsageError(`--scope ${kind} needs ${flag}`);
    return value;
  };
  if (options.scope !== 'identity' && options.externalId !== undefined)
    throw new UsageError('--external-id goes with --scope identity only');
  if (options.scope !== 'key' && options.keyId !== undefined)
    throw new UsageError('--key-id goes with --scope key only');
  switch (options.scope) {
    case 'identity':
      return { kind: 'identity', externalId: needs('--external-id', options.externalId, 'identity') };
    case 'key':
      return { kind: 'key', keyId: needs('--key-id', options.keyId, 'key') };
    case 'each-identity':
      return { kind: 'eachIdentity' };
    case 'each-key':
      return { kind: 'eachKey' };
    default:
      return { kind: 'api' };
  }
}

export function createRuleCommand(options: CreateRuleOptions): Promise<number> {
  const scope = scopeOf(options);
  const timeZone = options.timeZone === undefined ? undefined : timeZoneOption(options.timeZone);
  return withClient(
    options,
    (client) =>
      client.createAlertRule({
        apiId: options.api,
        scope,
        ...(options.outcome && { outcomes: [...new Set(options.outcome)] }),
        ...(options.tag && { tags: [...new Set(options.tag)] }),
        period: options.period,
        ...(timeZone !== undefined && { timeZone }),
        levels: [...new Set(options.level)],
      }),
    (rule: AlertRule) => out(ruleLine(rule)),
  );
}

export const listRulesCommand = (options: ServiceOptions & { api: string }) =>
  withClient(
    options,
    (client) => client.listAlertRules(options.api),
    ({ rules }: { rules: AlertRule[] }) => rules.forEach((rule) => out(ruleLine(rule))),
  );

export const deleteRuleCommand = (options: ServiceOptions & { api: string; rule: string }) =>
  withClient(
    options,
    (client) => client.deleteAlertRule({ apiId: options.api, ruleId: options.rule }),
    () => process.stderr.write(`rule ${options.rule} deleted\n`),
  );

export const createEndpointCommand = (
  options: ServiceOptions & { webhookUrl: string; rule?: string[] | undefined },
) =>
  withClient(
    options,
    (client) =>
      client.createAlertEndpoint({
        url: options.webhookUrl,
        ...(options.rule && { ruleIds: [...new Set(options.rule)] }),
      }),
    (endpoint: { endpointId: string; secret: string }) => {
      // The secret alone on stdout's first line (for a pipe into a secret store), the id beside it on stderr.
      out(endpoint.secret);
      process.stderr.write(`endpoint ${endpoint.endpointId}: the secret above is shown only now\n`);
    },
  );

export const listEndpointsCommand = (options: ServiceOptions) =>
  withClient(
    options,
    (client) => client.listAlertEndpoints(),
    ({ endpoints }: { endpoints: { endpointId: string; url: string; ruleIds?: string[] }[] }) =>
      endpoints.forEach((e) =>
        out(`${e.endpointId}  ${e.url}  ${e.ruleIds ? e.ruleIds.join(',') : 'all rules'}`),
      ),
  );

export const deleteEndpointCommand = (options: ServiceOptions & { endpointId: string }) =>
  withClient(
    options,
    (client) => client.deleteAlertEndpoint(options.endpointId),
    () => process.stderr.write(`endpoint ${options.endpointId} deleted\n`),
  );

export const deliveriesCommand = (
  options: ServiceOptions & { api: string; alert?: string | undefined; limit?: number | undefined },
) =>
  withClient(
    options,
    (client) =>
      client.listAlertDeliveries({
        apiId: options.api,
        ...(options.alert !== undefined && { alertId: options.alert }),
        ...(options.limit !== undefined && { limit: options.limit }),
      }),
    ({ deliveries }: Awaited<ReturnType<AnalyticsClient['listAlertDeliveries']>>) =>
      deliveries.forEach((d) =>
        out(
          [
            new Date(d.at).toISOString(),
            d.alertId,
            d.endpointId,
            `attempt ${d.attempt}`,
            d.outcome,
            ...(d.status !== undefined ? [`HTTP ${d.status}`] : []),
            ...(d.replay ? ['replay'] : []),
            ...(d.error !== undefined ? [d.error] : []),
          ].join('  '),
        ),
      ),
  );

export interface ReplayOptions {
  api: string;
  alert?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

export async function replayCommand(options: ReplayOptions): Promise<number> {
  const now = Date.now();
  const byAlert = options.alert !== undefined;
  if (byAlert === (options.since !== undefined))
    throw new UsageError('give --alert, or --since (and --until)');
  if (byAlert && options.until !== undefined) throw new UsageError('--until goes with --since');
  if (byAlert && !new RegExp(ALERT_ID_PATTERN).test(options.alert!))
    throw new UsageError('an alert id is 24 hex digits (the webhook-id)');
  const { replayAlerts } = await import('@va/compactor');
  const result = await withRedis((redis, config) =>
    replayAlerts(
      redis,
      config.keyPrefix,
      byAlert
        ? { apiId: options.api, alertId: options.alert! }
        : { apiId: options.api, since: options.since!, until: options.until ?? now },
      now,
    ),
  );
  process.stderr.write(
    `${result.crossings} crossing(s) found, ${result.queued} webhook(s) queued for delivery\n`,
  );
  if (byAlert && result.crossings === 0) {
    process.stderr.write(`alert ${options.alert} is not in the API's crossings (kept 30 days)\n`);
    return 1;
  }
  return 0;
}

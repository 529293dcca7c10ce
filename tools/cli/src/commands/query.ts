/**
 * `query --api <apiId> [filters] [--group-by <g> ...]`: asks GET /v1/analytics.getVerifications through
 * the typed client (@va/client) and prints the datapoints as JSON on stdout; the precision and the
 * request id go to stderr. The token (root key or read token) comes from --token or ANALYTICS_TOKEN.
 */
import { parseArgs } from 'node:util';
import { AnalyticsClientError, ApiError, createClient, type GetVerificationsParams } from '@va/client';
import { GRANULARITIES, ORDER, ORDER_BY, type GroupBy } from '@va/contracts';
import { loadConfig } from '@va/config';

export const usage = [
  '  query --api <apiId> [--external-id <id>] [--key <keyId> ...] [--tag <tag> ...] [--group-by <g> ...]',
  '        [--start <time>] [--end <time>] [--limit <n>] [--order-by <field>] [--order asc|desc]',
  '        [--url <base url>] [--token <token>] [--timeout <ms>]',
  '      prints the datapoints of GET /v1/analytics.getVerifications as JSON (times: unix ms or ISO 8601;',
  '      token: a root key or read token, default ANALYTICS_TOKEN; url default http://127.0.0.1:$PORT)',
].join('\n');

const GROUPS: readonly string[] = ['key', 'identity', 'tag', 'tags', ...GRANULARITIES];

class UsageError extends Error {}

/** unix ms, or an ISO 8601 date/time (`2026-03-01`, `2026-03-01T10:00Z`). */
export function parseTime(name: string, value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--${name} must be unix ms or an ISO 8601 time, got ${value}`);
  return ms;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got ${value}`);
  }
  return value as T;
}

/** Command-line options → typed parameters. The service validates them again (and says why). */
export function paramsOf(values: Record<string, string | string[] | undefined>): GetVerificationsParams {
  const str = (name: string) => values[name] as string | undefined;
  const list = (name: string) => (values[name] as string[] | undefined)?.flatMap((v) => v.split(','));
  const apiId = str('api');
  if (apiId === undefined) throw new UsageError('--api <apiId> is required');
  const params: GetVerificationsParams = { apiId };
  const externalId = str('external-id');
  if (externalId !== undefined) params.externalId = externalId;
  const keyId = list('key');
  if (keyId) params.keyId = keyId;
  const tag = list('tag');
  if (tag) params.tag = tag;
  const groupBy = list('group-by');
  if (groupBy) params.groupBy = groupBy.map((g) => oneOf<GroupBy>('group-by', g, GROUPS as GroupBy[]));
  const start = str('start');
  if (start !== undefined) params.start = parseTime('start', start);
  const end = str('end');
  if (end !== undefined) params.end = parseTime('end', end);
  const limit = str('limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit)) throw new UsageError(`--limit must be a positive integer, got ${limit}`);
    params.limit = Number(limit);
  }
  const orderBy = str('order-by');
  if (orderBy !== undefined) params.orderBy = oneOf('order-by', orderBy, ORDER_BY);
  const order = str('order');
  if (order !== undefined) params.order = oneOf('order', order, ORDER);
  return params;
}

export async function run(args: string[]): Promise<number> {
  const config = loadConfig();
  let params: GetVerificationsParams;
  let values: Record<string, string | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        api: { type: 'string' },
        'external-id': { type: 'string' },
        key: { type: 'string', multiple: true },
        tag: { type: 'string', multiple: true },
        'group-by': { type: 'string', multiple: true },
        start: { type: 'string' },
        end: { type: 'string' },
        limit: { type: 'string' },
        'order-by': { type: 'string' },
        order: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        timeout: { type: 'string' },
      },
      strict: true,
    }));
    params = paramsOf(values);
  } catch (err) {
    const parseError =
      err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS');
    if (!(err instanceof UsageError) && !parseError) throw err;
    process.stderr.write(`query: ${(err as Error).message}\n${usage}\n`);
    return 2;
  }
  const token = (values.token as string | undefined) ?? config.analyticsToken;
  if (token === undefined) {
    process.stderr.write(`query: give a token with --token or ANALYTICS_TOKEN\n${usage}\n`);
    return 2;
  }
  const client = createClient({
    baseUrl: (values.url as string | undefined) ?? config.queryUrl,
    token,
    ...(values.timeout !== undefined && { timeoutMs: Number(values.timeout) }),
  });
  try {
    const result = await client.getVerifications(params);
    process.stdout.write(`${JSON.stringify(result.datapoints, null, 2)}\n`);
    process.stderr.write(
      `${result.datapoints.length} datapoints, precision ${result.precision}, ${result.requestId}\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof AnalyticsClientError)) throw err;
    process.stderr.write(`query: ${err.message}\n`);
    if (err instanceof ApiError) process.stderr.write(`request id: ${err.requestId ?? 'none'}\n`);
    return 1;
  }
}

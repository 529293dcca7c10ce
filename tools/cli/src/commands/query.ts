/**
 * `query`: asks GET /v1/analytics.getVerifications through the typed client (@va/client) and prints
 * the datapoints as JSON on stdout; the precision and the request id go to stderr. The token (root
 * key or read token) comes from ANALYTICS_TOKEN or stdin (secret-input.ts). Options: ../program/query.ts.
 */
import { AnalyticsClientError, ApiError, createClient, type GetVerificationsParams } from '@va/client';
import { loadConfig } from '@va/config';
import { analyticsToken, type TokenSource } from './secret-input';

export interface QueryOptions extends TokenSource {
  params: GetVerificationsParams;
  /** Base URL of the query service; default QUERY_URL. */
  url?: string | undefined;
  timeoutMs?: number | undefined;
}

export async function queryCommand(options: QueryOptions): Promise<number> {
  const config = loadConfig();
  const token = await analyticsToken(options, config.analyticsToken);
  const client = createClient({
    baseUrl: options.url ?? config.queryUrl,
    token,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  try {
    const result = await client.getVerifications(options.params);
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

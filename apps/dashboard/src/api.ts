/**
 * The page's one door to the API: @va/client, with the pasted secret as its bearer token and the page's
 * own origin as base URL (the query service serves both). Errors become one line for the page.
 */
import { AnalyticsClientError, ApiError, createClient, type AnalyticsClient } from '@va/client';

export function createVerificationsClient(origin: string, secret: string): AnalyticsClient {
  return createClient({ baseUrl: origin, token: secret, timeoutMs: 15_000 });
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    return `${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`;
  }
  if (error instanceof AnalyticsClientError) return `The service did not answer: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The page's one door to the API. TEMPORARY plain fetch until @va/client is merged; the page only uses
 * this narrow shape (the client's getVerifications result), so swapping it changes this file alone.
 */
import type { Datapoint, VerificationsQuery } from '@va/contracts';

export type Precision = 'hour' | 'day' | 'month';

export interface VerificationsClient {
  getVerifications(
    query: VerificationsQuery,
  ): Promise<{ datapoints: Datapoint[]; precision: Precision; requestId: string | undefined }>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function createVerificationsClient(baseUrl: string, secret: string): VerificationsClient {
  return {
    async getVerifications(query) {
      const qs = new URLSearchParams();
      for (const [k, v] of Object.entries(query))
        for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined) qs.append(k, String(item));
      const response = await fetch(`${baseUrl}/v1/analytics.getVerifications?${qs}`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      const body = (await response.json()) as unknown;
      if (!response.ok) {
        const e = (body as { error: { title: string; detail: string } }).error;
        throw new HttpError(response.status, `${e.title}: ${e.detail}`);
      }
      const p = response.headers.get('x-precision');
      return {
        datapoints: body as Datapoint[],
        precision: p === 'day' || p === 'month' ? p : 'hour',
        requestId: response.headers.get('x-request-id') ?? undefined,
      };
    },
  };
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof HttpError && error.status === 401;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The answer headers the client reports (docs/api.md: X-Precision, X-Time-Zone). */
import type { Precision } from './types.js';

/** X-Precision: `hour` when the header is absent (the answer is exact). */
export function precisionOf(response: Response): Precision {
  const header = response.headers.get('x-precision');
  return header === 'day' || header === 'month' ? header : 'hour';
}

/** X-Time-Zone: `UTC` from a service that does not send it (its slices are UTC). */
export function timeZoneOf(response: Response): string {
  return response.headers.get('x-time-zone') ?? 'UTC';
}

/** The row cap (docs/api.md#order-and-limit): one definition of the refusal. */
import type { FieldError } from '@va/contracts';

/** True when the response would hold more than maxRows rows after `limit`. */
export const overRowCap = (rowCount: number, limit: number | undefined, maxRows: number): boolean =>
  Math.min(rowCount, limit ?? Infinity) > maxRows;

/**
 * The refusal of a query over the cap. `lowerBound`: rowCount is what the query gives at least (a
 * refusal decided before every row is counted, as the query service's early checks do).
 */
export function rowCapError(rowCount: number, maxRows: number, { lowerBound = false } = {}): FieldError {
  const rows = `${lowerBound ? 'at least ' : ''}${rowCount} rows`;
  return {
    location: 'query.limit',
    message: `the query gives ${rows}, more than the ${maxRows} one response may hold`,
    fix: 'narrow the range or set a limit',
  };
}

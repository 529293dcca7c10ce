/** The row cap (docs/api.md#order-and-limit): one definition of the refusal. */
import type { FieldError } from '@va/contracts';

/** True when the response would hold more than maxRows rows after `limit`. */
export const overRowCap = (rowCount: number, limit: number | undefined, maxRows: number): boolean =>
  Math.min(rowCount, limit ?? Infinity) > maxRows;

export function rowCapError(rowCount: number, maxRows: number): FieldError {
  return {
    location: 'query.limit',
    message: `the query gives ${rowCount} rows, more than the ${maxRows} one response may hold`,
    fix: 'narrow the range or set a limit',
  };
}

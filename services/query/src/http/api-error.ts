import type { ErrorKind, FieldError } from '@va/contracts';

/** An error the client is told about: one of the contract's kinds, a detail, and per-field failures. */
export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** The row cap refusal (400 invalid_input at query.limit), told apart for the metrics. */
export class RowCapError extends ApiError {
  constructor(errors: FieldError[]) {
    super('invalid_input', 'The answer would hold too many rows.', errors);
  }
}

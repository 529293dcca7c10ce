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

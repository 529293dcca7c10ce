/**
 * What a failed call throws. Every error of the client is an AnalyticsClientError:
 * - ApiError: the service answered with an error status (the envelope's requestId, status, type,
 *   title, detail and errors[] are carried as fields);
 * - NetworkError: no answer (connection refused or reset, DNS, CORS in a browser);
 * - TimeoutError: no answer within the client's timeout.
 * A call aborted through the caller's own AbortSignal rejects with that signal's reason instead.
 */
import type { ErrorKind, FieldError } from './types.js';

export type { ErrorKind };

export abstract class AnalyticsClientError extends Error {
  /** Number of requests sent for this call (retries included). */
  abstract readonly attempts: number;
}

export interface ApiErrorFields {
  status: number;
  /** error.type: a URI ending with the kind, e.g. https://…/errors/invalid_input. */
  type: string;
  title: string;
  detail: string;
  /** meta.requestId, or the X-Request-Id header when the body is not an envelope. */
  requestId: string | undefined;
  /** One entry per invalid field (400 invalid_input); empty otherwise. */
  errors: FieldError[];
  /** Retry-After of the answer in milliseconds, when it had one (429, 503). */
  retryAfterMs: number | undefined;
  attempts: number;
}

export class ApiError extends AnalyticsClientError implements ApiErrorFields {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly requestId: string | undefined;
  readonly errors: FieldError[];
  readonly retryAfterMs: number | undefined;
  readonly attempts: number;

  constructor(fields: ApiErrorFields) {
    const where = fields.errors.map((e) => `${e.location}: ${e.message}`).join('; ');
    super(`${fields.status} ${fields.title}: ${fields.detail}${where ? ` (${where})` : ''}`);
    this.status = fields.status;
    this.type = fields.type;
    this.title = fields.title;
    this.detail = fields.detail;
    this.requestId = fields.requestId;
    this.errors = fields.errors;
    this.retryAfterMs = fields.retryAfterMs;
    this.attempts = fields.attempts;
  }

  /** The contract's kind (`invalid_input`, `forbidden`, …), or undefined for a type outside the contract. */
  get kind(): ErrorKind | undefined {
    const last = this.type.slice(this.type.lastIndexOf('/') + 1);
    return KINDS.includes(last) ? (last as ErrorKind) : undefined;
  }
}

/**
 * Every kind of the contract (@va/contracts ERROR_KINDS), at run time: the client imports the contracts
 * as types only, so the list is written out here, and the Record type makes a kind missing from it, or one
 * the contract does not have, a type error.
 */
const KIND_SET: Record<ErrorKind, true> = {
  unauthorized: true,
  invalid_input: true,
  forbidden: true,
  not_found: true,
  too_many_requests: true,
  query_too_expensive: true,
  query_timeout: true,
  generation_changed: true,
  too_many_streams: true,
  internal_server_error: true,
};
const KINDS = Object.keys(KIND_SET);

export class NetworkError extends AnalyticsClientError {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class TimeoutError extends AnalyticsClientError {
  override readonly name = 'TimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly attempts: number,
  ) {
    super(`No answer within ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'}).`);
  }
}

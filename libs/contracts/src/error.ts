import { Type, type Static } from '@sinclair/typebox';

export const ERROR_KINDS = {
  unauthorized: { status: 401, title: 'Unauthorized' },
  invalid_input: { status: 400, title: 'Bad Request' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not Found' },
  /** Rate or concurrency limit of the root key reached; the response carries Retry-After. */
  too_many_requests: { status: 429, title: 'Too Many Requests' },
  /**
   * The query's estimated work is over the service's bound (QUERY_MAX_COST): refused before its counters are
   * read; the detail names what to narrow (range, filter, groupBy dimensions, granularity).
   */
  query_too_expensive: { status: 422, title: 'Unprocessable Content' },
  /** The request ran out of its time budget (QUERY_TIMEOUT_MS); its work was stopped. */
  query_timeout: { status: 503, title: 'Service Unavailable' },
  /**
   * A rebuild switched the counters to a new generation while the query read them, twice (docs/rebuild.md
   * "Queries across the switch"): nothing partial is answered; retrying answers from the new generation.
   */
  generation_changed: { status: 503, title: 'Service Unavailable' },
  /**
   * GET /v1/analytics.stream: this query service holds as many open streams as it may (QUERY_STREAM_MAX);
   * another instance, or a retry later, may have room. The response carries Retry-After.
   */
  too_many_streams: { status: 503, title: 'Service Unavailable' },
  internal_server_error: { status: 500, title: 'Internal Server Error' },
} as const;
export type ErrorKind = keyof typeof ERROR_KINDS;

export const FieldError = Type.Object({
  location: Type.String({ description: '<part>.<field>, e.g. query.limit' }),
  message: Type.String(),
  fix: Type.Optional(Type.String()),
});
export type FieldError = Static<typeof FieldError>;

/** The error envelope, used for every error kind (docs/api.md#errors). */
export const ErrorEnvelope = Type.Object(
  {
    meta: Type.Object({ requestId: Type.String() }),
    error: Type.Object({
      title: Type.String(),
      detail: Type.String(),
      status: Type.Integer(),
      type: Type.String({ format: 'uri' }),
      errors: Type.Array(FieldError),
    }),
  },
  { $id: 'ErrorEnvelope' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

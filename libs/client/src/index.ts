/**
 * @va/client: a typed client for the verification analytics API.
 *
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:8080', token: rootKey });
 *   const { datapoints } = await client.getVerifications({ apiId: 'api_1', groupBy: ['day'] });
 */
export {
  AnalyticsClient,
  createClient,
  CREATE_READ_TOKEN_PATH,
  DEFAULT_TIMEOUT_MS,
  GET_VERIFICATIONS_PATH,
  LIST_APIS_PATH,
  ALERTS_PATHS,
  STREAM_PATH,
} from './client.js';
export type { StreamAnswer, StreamOptions } from './stream.js';
export type { CallOptions, ClientOptions, FetchLike } from './client.js';
export { AnalyticsClientError, ApiError, NetworkError, TimeoutError } from './errors.js';
export type { ApiErrorFields, ErrorKind } from './errors.js';
export { encodeQuery } from './encode.js';
export { DEFAULT_RETRY, RETRY_STATUSES, parseRetryAfter, retryDelay } from './retry.js';
export type { RetryOptions } from './retry.js';
export { systemClock, type Clock } from './clock.js';
export type {
  AlertCrossing,
  AlertDeleted,
  AlertEndpoint,
  AlertEndpointList,
  AlertRule,
  AlertRuleList,
  AlertScope,
  AlertWebhookPayload,
  CreateAlertEndpointRequest,
  CreateAlertRuleRequest,
  CreatedAlertEndpoint,
  DeliveryAttempt,
  DeliveryList,
  ListDeliveriesParams,
  ApiList,
  CreateReadTokenRequest,
  ReadToken,
  Datapoint,
  ErrorEnvelope,
  FieldError,
  GetVerificationsParams,
  Precision,
  VerificationsQuery,
  VerificationsResult,
} from './types.js';

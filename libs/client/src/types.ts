/**
 * The shapes the client sends and receives, all derived (Static<>) from the typebox schemas of
 * @va/contracts that the query service validates and documents with. Type-only imports: the
 * client's JavaScript never loads typebox or the schemas, so browser bundles stay small.
 */
import type * as contracts from '@va/contracts';

// Aliases rather than re-exports: in the bundled declarations of the published package, a re-export
// would also export the schema constants of the same names, which its JavaScript does not have.
export type Datapoint = contracts.Datapoint;
export type ErrorEnvelope = contracts.ErrorEnvelope;
export type FieldError = contracts.FieldError;
/** The contract's error kinds: the last segment of `error.type`. */
export type ErrorKind = contracts.ErrorKind;
export type VerificationsQuery = contracts.VerificationsQuery;
export type CreateReadTokenRequest = contracts.CreateReadTokenRequest;
export type ReadToken = contracts.ReadToken;
export type ApiList = contracts.ApiList;
export type AlertRule = contracts.AlertRule;
export type AlertRuleList = contracts.AlertRuleList;
export type AlertScope = contracts.AlertScope;
export type CreateAlertRuleRequest = contracts.CreateAlertRuleRequest;
export type AlertEndpoint = contracts.AlertEndpoint;
export type AlertEndpointList = contracts.AlertEndpointList;
export type CreateAlertEndpointRequest = contracts.CreateAlertEndpointRequest;
export type CreatedAlertEndpoint = contracts.CreatedAlertEndpoint;
export type AlertDeleted = contracts.AlertDeleted;
export type DeliveryAttempt = contracts.DeliveryAttempt;
export type DeliveryList = contracts.DeliveryList;
export type AlertCrossing = contracts.AlertCrossing;
export type AlertWebhookPayload = contracts.AlertWebhookPayload;
/** Parameters of GET /v1/alerts.listDeliveries. */
export type ListDeliveriesParams = contracts.ListDeliveriesQuery;

/** Parameters of GET /v1/analytics.getVerifications (lists are arrays; times are unix ms). */
export type GetVerificationsParams = VerificationsQuery;

/**
 * How exact the answer is: `hour` normally; `day` or `month` when part of the range was older than
 * the hour retention and was answered from day or month rollups (header X-Precision).
 */
export type Precision = 'hour' | 'day' | 'month';

export interface VerificationsResult {
  datapoints: Datapoint[];
  precision: Precision;
  /** X-Request-Id of the answer: quote it when reporting a problem. */
  requestId: string | undefined;
  /**
   * The IANA time zone whose calendar the day and month slices follow (header X-Time-Zone): the query's
   * `timeZone`, else the API's default zone. `UTC` from a service that does not send the header.
   */
  timeZone: string;
}

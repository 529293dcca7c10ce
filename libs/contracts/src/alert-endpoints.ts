/**
 * Webhook endpoints of a workspace and the delivery log (docs/alerts.md "Webhook endpoints", "Delivery").
 * An endpoint's secret is answered once, by createEndpoint; nothing else shows it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AlertEndpointId, AlertId, AlertRuleId } from './alerts';
import { identifier } from './identifiers';

/** Endpoints of one workspace at most. */
export const MAX_ALERT_ENDPOINTS = 100;
/** Rules one endpoint may name at most (absent = all of the workspace's rules). */
export const MAX_ENDPOINT_RULES = 1000;
export const MAX_ENDPOINT_URL_LENGTH = 2048;
/** Attempts listDeliveries answers at most (newest first). */
export const MAX_DELIVERIES_LISTED = 1000;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_ENDPOINT_URL_LENGTH,
  description:
    'http or https URL the webhooks are POSTed to, without user or password. Private, loopback and link-local ' +
    'addresses are refused when a webhook is sent unless the operator allows them (ALERTS_ALLOW_PRIVATE_URLS).',
  examples: ['https://hooks.example.com/usage'],
});
const RuleIds = Type.Array(AlertRuleId, {
  minItems: 1,
  maxItems: MAX_ENDPOINT_RULES,
  uniqueItems: true,
  description:
    "The rules whose crossings this endpoint receives (of any API of the workspace). Absent: every rule of the workspace, present and future. An id that is no rule's matches nothing.",
});

/** Body of POST /v1/alerts.createEndpoint. */
export const CreateAlertEndpointRequest = Type.Object(
  { url: Url, ruleIds: Type.Optional(RuleIds) },
  { $id: 'CreateAlertEndpointRequest', additionalProperties: false },
);
export type CreateAlertEndpointRequest = Static<typeof CreateAlertEndpointRequest>;

/** An endpoint as listed (never with its secret). */
export const AlertEndpoint = Type.Object(
  {
    endpointId: AlertEndpointId,
    url: Type.String(),
    ruleIds: Type.Optional(Type.Array(AlertRuleId)),
    createdAt: Type.Integer({ description: 'Unix ms of its creation.' }),
  },
  { $id: 'AlertEndpoint' },
);
export type AlertEndpoint = Static<typeof AlertEndpoint>;

/** Answer of createEndpoint: the endpoint and, this once, its signing secret. */
export const CreatedAlertEndpoint = Type.Object(
  {
    endpointId: AlertEndpointId,
    url: Type.String(),
    ruleIds: Type.Optional(Type.Array(AlertRuleId)),
    createdAt: Type.Integer(),
    secret: Type.String({
      description:
        'whsec_ + base64 of 24 random bytes: the Standard Webhooks signing secret. Shown only in this answer; store it.',
    }),
  },
  { $id: 'CreatedAlertEndpoint' },
);
export type CreatedAlertEndpoint = Static<typeof CreatedAlertEndpoint>;

/** Answer of GET /v1/alerts.listEndpoints: the workspace's endpoints, oldest first. */
export const AlertEndpointList = Type.Object(
  { endpoints: Type.Array(AlertEndpoint) },
  { $id: 'AlertEndpointList' },
);
export type AlertEndpointList = Static<typeof AlertEndpointList>;

/** Body of POST /v1/alerts.deleteEndpoint. */
export const DeleteAlertEndpointRequest = Type.Object(
  { endpointId: AlertEndpointId },
  { $id: 'DeleteAlertEndpointRequest', additionalProperties: false },
);
export type DeleteAlertEndpointRequest = Static<typeof DeleteAlertEndpointRequest>;

export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'refused', 'gave_up', 'dropped'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** One attempt of one webhook (an entry of the API's delivery log). */
export const DeliveryAttempt = Type.Object(
  {
    alertId: AlertId,
    endpointId: AlertEndpointId,
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt, counting retries.' }),
    outcome: Type.Union(
      DELIVERY_OUTCOMES.map((o) => Type.Literal(o)),
      {
        description:
          'delivered (2xx); failed (another status, a redirect, a timeout or a network error: retried); refused ' +
          '(the address is not allowed: retried); gave_up (the last attempt failed); dropped (the endpoint or its ' +
          'subscription is gone).',
      },
    ),
    status: Type.Optional(Type.Integer({ description: "The receiver's HTTP status, when it answered." })),
    error: Type.Optional(Type.String({ description: 'Why the attempt failed.' })),
    replay: Type.Optional(Type.Boolean({ description: 'Sent by a replay.' })),
    at: Type.Integer({ description: 'Unix ms when the attempt started.' }),
    durationMs: Type.Integer(),
  },
  { $id: 'DeliveryAttempt' },
);
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** Query of GET /v1/alerts.listDeliveries. */
export const ListDeliveriesQuery = Type.Object(
  {
    apiId: identifier('The API whose delivery log is read.'),
    alertId: Type.Optional(AlertId),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_DELIVERIES_LISTED,
        description: `Attempts answered at most, newest first (default 100, at most ${MAX_DELIVERIES_LISTED}).`,
      }),
    ),
  },
  { $id: 'ListDeliveriesQuery', additionalProperties: false },
);
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

/** Answer of GET /v1/alerts.listDeliveries: attempts, newest first. */
export const DeliveryList = Type.Object({ deliveries: Type.Array(DeliveryAttempt) }, { $id: 'DeliveryList' });
export type DeliveryList = Static<typeof DeliveryList>;

/** Answer of deleteRule and deleteEndpoint. */
export const AlertDeleted = Type.Object({ deleted: Type.Literal(true) }, { $id: 'AlertDeleted' });
export type AlertDeleted = Static<typeof AlertDeleted>;

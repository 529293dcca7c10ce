/**
 * Usage alerts (docs/alerts.md): a rule says which count of an API to watch (scope, outcomes, tags),
 * over which period (a day or month of the rule's time zone) and at which levels; a crossing is the first moment a scope
 * member's count for a period reaches a level. The same schemas validate the requests of
 * /v1/alerts.* and document them (OpenAPI), and give the types of @va/client and the store.
 */
import { Type, type Static } from '@sinclair/typebox';
import { externalId, identifier, Tag } from './identifiers';
import { OUTCOMES } from './outcomes';

/** Levels of one rule: 1–10 distinct positive counts (stored ascending). */
export const MAX_ALERT_LEVELS = 10;
/** Rules of one API at most (each adds work to every batch of the API's events). */
export const MAX_ALERT_RULES_PER_API = 10_000;
/** Tags of a rule's filter at most (an event has at most 20). */
export const MAX_ALERT_TAGS = 20;

export const ALERT_PERIODS = ['day', 'month'] as const;
export type AlertPeriod = (typeof ALERT_PERIODS)[number];

/** `rule_` + 24 hex digits, made by the service. */
export const ALERT_RULE_ID_PATTERN = '^rule_[0-9a-f]{24}$';
/** An alert id: the first 24 hex digits of a SHA-256 (libs/core alertId). */
export const ALERT_ID_PATTERN = '^[0-9a-f]{24}$';
/** `ep_` + 24 hex digits, made by the service. */
export const ALERT_ENDPOINT_ID_PATTERN = '^ep_[0-9a-f]{24}$';

export const AlertRuleId = Type.String({
  pattern: ALERT_RULE_ID_PATTERN,
  description: 'Id of an alert rule (made by the service).',
  examples: ['rule_5f0c3b9d2a41e8c7b6a90d13'],
});
export const AlertId = Type.String({
  pattern: ALERT_ID_PATTERN,
  description: 'Id of one crossing: the same for every delivery, retry, replay and rebuild (webhook-id).',
  examples: ['9c1e0f4b7a3d2e6f8a0b1c2d'],
});
export const AlertEndpointId = Type.String({
  pattern: ALERT_ENDPOINT_ID_PATTERN,
  description: 'Id of a webhook endpoint (made by the service).',
  examples: ['ep_0a1b2c3d4e5f60718293a4b5'],
});

/** Whose count a rule watches. The "each" kinds watch every identity (or key) of the API separately. */
export const AlertScope = Type.Union(
  [
    Type.Object({ kind: Type.Literal('api') }, { additionalProperties: false }),
    Type.Object(
      { kind: Type.Literal('identity'), externalId: externalId('The identity (end user) watched.') },
      { additionalProperties: false },
    ),
    Type.Object(
      { kind: Type.Literal('key'), keyId: identifier('The key watched.') },
      { additionalProperties: false },
    ),
    Type.Object({ kind: Type.Literal('eachIdentity') }, { additionalProperties: false }),
    Type.Object({ kind: Type.Literal('eachKey') }, { additionalProperties: false }),
  ],
  {
    description:
      'api: the whole API; identity: one identity by externalId; key: one key; eachIdentity / eachKey: ' +
      'every identity (key) of the API, each with its own count.',
  },
);
export type AlertScope = Static<typeof AlertScope>;
export type AlertScopeKind = AlertScope['kind'];

const Levels = Type.Array(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), {
  minItems: 1,
  maxItems: MAX_ALERT_LEVELS,
  uniqueItems: true,
  description: `1–${MAX_ALERT_LEVELS} distinct counts; a crossing fires when the period's count reaches each one. Stored ascending.`,
  examples: [[1000, 5000, 10000]],
});
const Outcomes = Type.Array(Type.Union(OUTCOMES.map((o) => Type.Literal(o))), {
  minItems: 1,
  maxItems: OUTCOMES.length,
  uniqueItems: true,
  description: 'Only verifications with one of these outcomes count. Absent: every outcome (the total).',
  examples: [['VALID']],
});
const Tags = Type.Array(Tag, {
  minItems: 1,
  maxItems: MAX_ALERT_TAGS,
  uniqueItems: true,
  description: 'Only verifications whose tag set holds all of these tags count. Absent: no tag filter.',
  examples: [['plan:pro']],
});
const Period = Type.Union(
  ALERT_PERIODS.map((p) => Type.Literal(p)),
  {
    description:
      "The count starts again every day or calendar month of the rule's timeZone (the calendar of the query slices).",
  },
);
/** A time zone name; whether it names a zone is checked by libs/core checkTimeZone (Intl), not by the schema. */
const TimeZone = (description: string) => Type.String({ description, examples: ['America/New_York'] });

/** Body of POST /v1/alerts.createRule. */
export const CreateAlertRuleRequest = Type.Object(
  {
    apiId: identifier('The API whose verifications are counted.', ['api_demo']),
    scope: AlertScope,
    outcomes: Type.Optional(Outcomes),
    tags: Type.Optional(Tags),
    period: Period,
    timeZone: Type.Optional(
      TimeZone(
        "IANA time zone of the period (any letter case): a day starts at local midnight, a month on its local first. Absent: the API's default zone (UTC unless set). The rule keeps the zone it was created with.",
      ),
    ),
    levels: Levels,
  },
  { $id: 'CreateAlertRuleRequest', additionalProperties: false },
);
export type CreateAlertRuleRequest = Static<typeof CreateAlertRuleRequest>;

/** A stored rule (answer of createRule, item of listRules). */
export const AlertRule = Type.Object(
  {
    ruleId: AlertRuleId,
    apiId: Type.String(),
    scope: AlertScope,
    outcomes: Type.Optional(Outcomes),
    tags: Type.Optional(Tags),
    period: Period,
    timeZone: Type.Optional(
      TimeZone(
        'The zone of the period, fixed when the rule was created (its IANA name, spelled as the header X-Time-Zone spells it). Absent on rules created before rules had zones: UTC.',
      ),
    ),
    levels: Levels,
    createdAt: Type.Integer({ description: 'Unix ms of its creation.' }),
  },
  { $id: 'AlertRule' },
);
export type AlertRule = Static<typeof AlertRule>;

/** Answer of GET /v1/alerts.listRules: the API's rules, oldest first. */
export const AlertRuleList = Type.Object({ rules: Type.Array(AlertRule) }, { $id: 'AlertRuleList' });
export type AlertRuleList = Static<typeof AlertRuleList>;

/** Body of POST /v1/alerts.deleteRule. */
export const DeleteAlertRuleRequest = Type.Object(
  { apiId: identifier('The API of the rule.'), ruleId: AlertRuleId },
  { $id: 'DeleteAlertRuleRequest', additionalProperties: false },
);
export type DeleteAlertRuleRequest = Static<typeof DeleteAlertRuleRequest>;

/**
 * One crossing: the first moment the count of one scope member (`member`: '' for the whole API, the
 * externalId for identity scopes, the keyId for key scopes) for one period reached one level.
 * `alertId` is a pure function of (ruleId, member, periodStart, level): libs/core alertId.
 */
export const AlertCrossing = Type.Object(
  {
    alertId: AlertId,
    ruleId: AlertRuleId,
    apiId: Type.String(),
    member: Type.String({
      description:
        "The scope member: '' for the whole API, the externalId of an identity, the keyId of a key.",
    }),
    period: Period,
    periodStart: Type.Integer({
      description: "Unix ms of the start of the day or month counted, in the rule's time zone.",
    }),
    level: Type.Integer({ minimum: 1, description: 'The level reached.' }),
    count: Type.Integer({
      description: 'The count when the crossing was detected (at least level; a batch may add several).',
    }),
    detectedAt: Type.Integer({ description: 'Unix ms when the count that reached the level was applied.' }),
  },
  { $id: 'AlertCrossing' },
);
export type AlertCrossing = Static<typeof AlertCrossing>;

/** The type of the webhook that reports a crossing. */
export const ALERT_WEBHOOK_TYPE = 'alert.threshold_crossed';

/** The JSON body of a webhook (Standard Webhooks' suggested shape: type, timestamp, data). */
export const AlertWebhookPayload = Type.Object(
  {
    type: Type.Literal(ALERT_WEBHOOK_TYPE),
    timestamp: Type.String({ description: 'ISO 8601 time of detection.' }),
    data: AlertCrossing,
  },
  { $id: 'AlertWebhookPayload' },
);
export type AlertWebhookPayload = Static<typeof AlertWebhookPayload>;

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { externalId, identifier, Identifier, Region, Tag } from './identifiers';
import { TEXT_RULE } from './text';
import { OUTCOME_FIELDS } from './outcomes';

export const MAX_TIME_MS = 253402300799999; // 9999-12-31T23:59:59.999Z
export const DEFAULT_MAX_ROWS = 100_000;

export const GROUP_BY = [
  'key',
  'identity',
  'tags',
  'tag',
  'region',
  'month',
  'day',
  'hour',
  'minute',
] as const;
export type GroupBy = (typeof GROUP_BY)[number];
/** The time granularities made of hour buckets: UTC hours, and days and months of a time zone. */
export const HOUR_GRANULARITIES = ['hour', 'day', 'month'] as const;
export type HourGranularity = (typeof HOUR_GRANULARITIES)[number];
/** Every time granularity: minute slices are read from minute buckets (docs/api.md#minute-slices). */
export const GRANULARITIES = ['minute', ...HOUR_GRANULARITIES] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const ORDER_BY = ['time', ...OUTCOME_FIELDS, 'total'] as const;
export type OrderBy = (typeof ORDER_BY)[number];
export const ORDER = ['asc', 'desc'] as const;
export type Order = (typeof ORDER)[number];

const Millis = Type.Integer({ minimum: 0, maximum: MAX_TIME_MS });
const list = <T extends TSchema>(item: T, description: string, examples: unknown[][]) =>
  Type.Array(item, {
    description: `${description} Repeat the parameter or separate values with commas.`,
    examples,
  });

/**
 * The query string of GET /v1/analytics.getVerifications after list splitting and
 * number coercion (docs/api.md#parameters). The same schema validates requests (libs/core
 * parseQuery) and documents them (OpenAPI).
 *
 * `limit` may not exceed the row cap, which is configurable (Config.maxRows); hence a
 * factory. `VerificationsQuery` is the schema for the default cap.
 */
export function verificationsQuerySchema(maxRows: number) {
  return Type.Object(
    {
      apiId: identifier(
        'The API whose verifications are counted (1–255 of A-Z a-z 0-9 _ - . :). Only keys of this API are included.',
        ['api_demo'],
      ),
      externalId: Type.Optional(
        externalId(
          `Only verifications whose identity has this externalId (one end user or organisation); 1–255 characters, ${TEXT_RULE}. A value no event carried matches nothing.`,
          ['acme-corp'],
        ),
      ),
      keyId: Type.Optional(
        list(Identifier, 'Only verifications of any of these keys.', [
          ['key_checkout'],
          ['key_checkout', 'key_mobile'],
        ]),
      ),
      tag: Type.Optional(
        list(
          Tag,
          `Only verifications whose tag set holds all of these tags (each 1–128 characters, ${TEXT_RULE}).`,
          [['plan:pro'], ['plan:pro', 'region:eu']],
        ),
      ),
      region: Type.Optional(
        list(
          Region,
          'Only verifications whose region is any of these (each 1–255 characters; a region holding a comma cannot be named here). Events without a region never match.',
          [['eu-west-1'], ['eu-west-1', 'us-east-1']],
        ),
      ),
      start: Type.Optional(
        Type.Union([Millis, Type.Null()], {
          description:
            'Start, unix ms, truncated to the start of its UTC hour (with groupBy=minute: its UTC minute); that hour is included. Empty or null: no lower bound (the answer starts at the first data). groupBy=minute needs a start within the minute retention (the last 48 hours by default).',
          examples: [1767225600000],
        }),
      ),
      end: Type.Optional(
        Type.Union([Millis, Type.Null()], {
          description:
            'End, unix ms, truncated to the start of its UTC hour; that whole hour is included (9:05 counts through 9:59:59.999). With groupBy=minute truncated to its UTC minute, that whole minute included. Empty or null: now.',
          examples: [1767312000000],
        }),
      ),
      timeZone: Type.Optional(
        Type.String({
          description:
            'IANA time zone of the day and month slices (default UTC): a day starts at local midnight (23 or 25 hours on a DST change), a month on its local first. Row times stay unix ms. Hour slices are always the UTC hours; start and end are still truncated to their UTC hour. Where a local midnight falls inside a UTC hour (offsets such as +05:30), that hour counts in the slice holding its start and the answer carries X-Precision: hour.',
          examples: ['America/New_York'],
        }),
      ),
      groupBy: Type.Optional(
        list(
          Type.Union(GROUP_BY.map((g) => Type.Literal(g))),
          'Groups: any of key, identity, tag or tags (not both), region, and at most one time granularity of minute, hour, day, month. Time slices are UTC; time-only grouping fills empty slices with zeros. Events without a region are left out of groupBy=region. minute: UTC minutes of a recent range (within the minute retention, 48 hours by default).',
          [['day'], ['key', 'day']],
        ),
      ),
      limit: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: maxRows,
          description: `Keep the first N rows after ordering (top-N). An answer over ${maxRows} rows needs a limit that brings it under.`,
          examples: [10],
        }),
      ),
      orderBy: Type.Optional(
        Type.Union(
          ORDER_BY.map((o) => Type.Literal(o)),
          {
            description:
              'Sort field (time needs a time granularity); ties fall back to the default order: time, then keyId, identity id, tag, tags, region.',
            examples: ['total'],
          },
        ),
      ),
      order: Type.Optional(
        Type.Union(
          ORDER.map((o) => Type.Literal(o)),
          {
            description: 'asc (default) or desc; without orderBy, desc reverses the default order.',
            examples: ['desc'],
          },
        ),
      ),
    },
    { $id: 'VerificationsQuery', additionalProperties: false },
  );
}

export const VerificationsQuery = verificationsQuerySchema(DEFAULT_MAX_ROWS);
export type VerificationsQuery = Static<typeof VerificationsQuery>;

/** Parameters that take one value only; a repeat is invalid_input. */
export const SCALAR_PARAMS = [
  'apiId',
  'externalId',
  'start',
  'end',
  'timeZone',
  'limit',
  'orderBy',
  'order',
] as const;
/** Parameters that take lists (repeated and/or comma-separated). */
export const LIST_PARAMS = ['keyId', 'tag', 'region', 'groupBy'] as const;
/** Integer parameters: the query string carries them as plain decimal digits. */
export const INTEGER_PARAMS = ['start', 'end', 'limit'] as const;
/** Integer parameters for which an empty value or `null` means absent (docs/api.md#parameters). */
export const NULLABLE_PARAMS = ['start', 'end'] as const;
export type QueryParam = (typeof SCALAR_PARAMS)[number] | (typeof LIST_PARAMS)[number];

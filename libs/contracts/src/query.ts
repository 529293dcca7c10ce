import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { externalId, identifier, Identifier, Tag } from './identifiers';
import { OUTCOME_FIELDS } from './outcomes';

export const MAX_TIME_MS = 253402300799999; // 9999-12-31T23:59:59.999Z
export const DEFAULT_MAX_ROWS = 100_000;

export const GROUP_BY = ['key', 'identity', 'tags', 'tag', 'month', 'day', 'hour'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export const GRANULARITIES = ['hour', 'day', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const ORDER_BY = ['time', ...OUTCOME_FIELDS, 'total'] as const;
export type OrderBy = (typeof ORDER_BY)[number];
export const ORDER = ['asc', 'desc'] as const;
export type Order = (typeof ORDER)[number];

const Millis = Type.Integer({ minimum: 0, maximum: MAX_TIME_MS });
const list = <T extends TSchema>(item: T, description: string) =>
  Type.Array(item, { description: `${description} Repeat the parameter or separate values with commas.` });

/**
 * The query string of GET /v1/analytics.getVerifications after list splitting and
 * number coercion (CONTRACT §3). The same schema validates requests (libs/core
 * parseQuery) and documents them (OpenAPI).
 *
 * `limit` may not exceed the row cap, which is configurable (Config.maxRows); hence a
 * factory. `VerificationsQuery` is the schema for the default cap.
 */
export function verificationsQuerySchema(maxRows: number) {
  return Type.Object(
    {
      apiId: identifier('Selects the API. Only keys belonging to this API are included.'),
      externalId: Type.Optional(externalId('Only verifications of identities with this externalId.')),
      keyId: Type.Optional(list(Identifier, 'Only verifications of any of these keys.')),
      tag: Type.Optional(list(Tag, 'Only verifications carrying all of these tags.')),
      start: Type.Optional(
        Type.Union([Millis, Type.Null()], {
          description: 'Start, unix ms, truncated to its UTC hour (inclusive). Absent: from the first data.',
        }),
      ),
      end: Type.Optional(
        Type.Union([Millis, Type.Null()], {
          description: 'End, unix ms, truncated to its UTC hour; that whole hour is included. Default: now.',
        }),
      ),
      groupBy: Type.Optional(
        list(
          Type.Union(GROUP_BY.map((g) => Type.Literal(g))),
          'Any of key, identity, tag or tags (not both), and at most one of hour, day, month.',
        ),
      ),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: maxRows, description: 'Keep the first N rows.' }),
      ),
      orderBy: Type.Optional(
        Type.Union(
          ORDER_BY.map((o) => Type.Literal(o)),
          { description: 'Sort field.' },
        ),
      ),
      order: Type.Optional(
        Type.Union(
          ORDER.map((o) => Type.Literal(o)),
          { description: 'Default asc.' },
        ),
      ),
    },
    { $id: 'VerificationsQuery', additionalProperties: false },
  );
}

export const VerificationsQuery = verificationsQuerySchema(DEFAULT_MAX_ROWS);
export type VerificationsQuery = Static<typeof VerificationsQuery>;

/** Parameters that take one value only; a repeat is invalid_input. */
export const SCALAR_PARAMS = ['apiId', 'externalId', 'start', 'end', 'limit', 'orderBy', 'order'] as const;
/** Parameters that take lists (repeated and/or comma-separated). */
export const LIST_PARAMS = ['keyId', 'tag', 'groupBy'] as const;
/** Integer parameters: the query string carries them as plain decimal digits. */
export const INTEGER_PARAMS = ['start', 'end', 'limit'] as const;
/** Integer parameters for which an empty value or `null` means absent (CONTRACT §3). */
export const NULLABLE_PARAMS = ['start', 'end'] as const;
export type QueryParam = (typeof SCALAR_PARAMS)[number] | (typeof LIST_PARAMS)[number];

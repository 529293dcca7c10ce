import { Type, type Static } from '@sinclair/typebox';
import { ExternalId, Identifier } from './identifiers';

/** Lifetime of a read token in seconds: 15 minutes unless asked otherwise, at most 24 hours. */
export const READ_TOKEN_DEFAULT_TTL_S = 15 * 60;
export const READ_TOKEN_MAX_TTL_S = 24 * 60 * 60;
export const READ_TOKEN_MIN_TTL_S = 1;

/** Body of POST /v1/analytics.createReadToken. */
export const CreateReadTokenRequest = Type.Object(
  {
    apiId: { ...Identifier, description: 'The one API the token may read.' },
    externalId: { ...ExternalId, description: 'The one end user (identity externalId) the token may read.' },
    expiresIn: Type.Optional(
      Type.Integer({
        minimum: READ_TOKEN_MIN_TTL_S,
        maximum: READ_TOKEN_MAX_TTL_S,
        description: `Lifetime in seconds; default ${READ_TOKEN_DEFAULT_TTL_S} (15 minutes), at most ${READ_TOKEN_MAX_TTL_S} (24 hours).`,
      }),
    ),
  },
  { $id: 'CreateReadTokenRequest', additionalProperties: false },
);
export type CreateReadTokenRequest = Static<typeof CreateReadTokenRequest>;

/** Answer of POST /v1/analytics.createReadToken. */
export const ReadToken = Type.Object(
  {
    token: Type.String({
      description: 'Send it as Authorization: Bearer <token> to GET /v1/analytics.getVerifications.',
    }),
    tokenId: Type.String({ description: 'The token id (JWT jti): the handle to revoke it.' }),
    apiId: Type.String(),
    externalId: Type.String(),
    expiresAt: Type.Integer({ description: 'Unix ms after which the token is refused.' }),
  },
  { $id: 'ReadToken' },
);
export type ReadToken = Static<typeof ReadToken>;

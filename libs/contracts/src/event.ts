import { Type, type Static } from '@sinclair/typebox';
import { ExternalId, Identifier, Tag } from './identifiers';
import { OUTCOMES } from './outcomes';

/** docs/api.md#the-event: one key verification, as producers write it to Kafka (JSON value, key = apiId). */
export const VerificationEvent = Type.Object(
  {
    requestId: Type.String({ minLength: 1, maxLength: 255 }),
    time: Type.Integer({ description: 'unix milliseconds of the verification' }),
    workspaceId: Identifier,
    apiId: Identifier,
    keyId: Identifier,
    outcome: Type.Union(OUTCOMES.map((o) => Type.Literal(o))),
    identity: Type.Optional(Type.Object({ id: Identifier, externalId: ExternalId })),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 20 })),
    /** Counted (docs/api.md#grouping); empty = no region. Any text: no pattern, unlike tags. */
    region: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { $id: 'VerificationEvent' },
);
export type VerificationEvent = Static<typeof VerificationEvent>;

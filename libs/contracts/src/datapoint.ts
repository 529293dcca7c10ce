import { Type, type Static } from '@sinclair/typebox';

const Count = Type.Integer({ minimum: 0 });

/** One element of the getVerifications response (seed §2, CONTRACT §3 "Rows"). */
export const Datapoint = Type.Object(
  {
    time: Type.Optional(Type.Integer({ description: 'start of the time slice, unix ms (UTC)' })),
    valid: Count,
    notFound: Count,
    forbidden: Count,
    usageExceeded: Count,
    rateLimited: Count,
    unauthorized: Count,
    disabled: Count,
    insufficientPermissions: Count,
    expired: Count,
    total: Count,
    keyId: Type.Optional(Type.String()),
    identity: Type.Optional(Type.Object({ id: Type.String(), externalId: Type.String() })),
    tag: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'Datapoint' },
);
export type Datapoint = Static<typeof Datapoint>;

export const Datapoints = Type.Array(Type.Ref(Datapoint), { $id: 'Datapoints' });

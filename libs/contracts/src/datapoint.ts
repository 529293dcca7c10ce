import { Type, type Static, type TInteger } from '@sinclair/typebox';
import { OUTCOME_FIELDS, type OutcomeField } from './outcomes';

const Count = Type.Integer({ minimum: 0 });
/** One counter per outcome, in OUTCOMES order. */
const OutcomeCounters = Object.fromEntries(OUTCOME_FIELDS.map((field) => [field, Count])) as Record<
  OutcomeField,
  TInteger
>;

/** One element of the getVerifications response (docs/api.md#rows). */
export const Datapoint = Type.Object(
  {
    time: Type.Optional(Type.Integer({ description: 'start of the time slice, unix ms (UTC)' })),
    ...OutcomeCounters,
    total: Count,
    keyId: Type.Optional(Type.String()),
    identity: Type.Optional(Type.Object({ id: Type.String(), externalId: Type.String() })),
    tag: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
    region: Type.Optional(Type.String({ description: 'the region of groupBy=region' })),
  },
  { $id: 'Datapoint' },
);
export type Datapoint = Static<typeof Datapoint>;

export const Datapoints = Type.Array(Type.Ref(Datapoint), { $id: 'Datapoints' });

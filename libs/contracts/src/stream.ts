import { Type, type Static } from '@sinclair/typebox';
import { Datapoint } from './datapoint';

/** Name of the event that carries an answer on GET /v1/analytics.stream (docs/api.md#stream). */
export const STREAM_ANSWER_EVENT = 'answer';
/** Name of the event that ends a stream with an error envelope (docs/api.md#stream). */
export const STREAM_ERROR_EVENT = 'error';

/**
 * The data of one `answer` event of GET /v1/analytics.stream: the rows getVerifications would answer at
 * that moment, and their precision (getVerifications' X-Precision header, which an event cannot carry).
 */
export const StreamAnswer = Type.Object(
  {
    data: Type.Array(Type.Ref(Datapoint), {
      description: 'The datapoints getVerifications answers for the same query at that moment.',
    }),
    precision: Type.Union([Type.Literal('hour'), Type.Literal('day'), Type.Literal('month')], {
      description:
        "'hour' when every count is hour-exact; 'day' or 'month' as getVerifications' X-Precision header says.",
    }),
  },
  {
    $id: 'StreamAnswer',
    description:
      'The data of an `answer` event (JSON on one `data:` line). Its `id:` is a hash of this content, so two ' +
      'events with the same id carry the same answer.',
  },
);
export type StreamAnswer = Static<typeof StreamAnswer>;

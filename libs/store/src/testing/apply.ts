/**
 * One batch of counted tuples applied to an API as the ingest worker applies it (applyApiBatch with its
 * CAS: off from `offset - 1` to `offset`, and the API's current compaction point), for store tests that
 * write counters without the worker.
 */
import type { Retention } from '@va/core';
import { expand, type TupleCounter } from '../aggregate';
import { readCompactedThrough } from '../compaction';
import type { RedisClient } from '../connection';
import type { KeySpace } from '../keys';
import { applyApiBatches } from '../apply';

export async function applyCounted(
  redis: RedisClient,
  space: KeySpace,
  apiId: string,
  counter: TupleCounter,
  { now, retention, offset }: { now: number; retention: Retention; offset: number },
) {
  const cmp = await readCompactedThrough(redis, space, apiId);
  const [result] = await applyApiBatches(redis, space, [
    {
      apiId,
      increments: expand(counter, { now, retention, cmp }),
      cas: {
        offsetField: 'test/0',
        expectedOff: offset > 0 ? offset - 1 : null,
        newOff: offset,
        expectedCmp: cmp,
      },
    },
  ]);
  return result;
}

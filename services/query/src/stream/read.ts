/**
 * One read of a stream query's answer (shared by every stream of that query): the current generation,
 * then the rows as getVerifications reads them (read-answer.ts; heavy queries in the read pool, as the
 * route does), within the time budget. The answer as the bytes of an event's data and their id.
 */
import type { ParsedQuery } from '@va/core';
import { globalKeys, type KeySpace } from '@va/store';
import { ApiError, RowCapError } from '../http/api-error';
import { withBudget } from '../http/budget';
import type { VerificationsDeps } from '../verifications/answer';
import { readAnswerJson, refuseEarly } from '../verifications/read-answer';
import { isHeavy, type ReadPool } from '../verifications/read-pool';
import { answerData, answerId } from './sse';

export interface StreamReadDeps extends VerificationsDeps {
  budgetMs: number;
  pool?: ReadPool;
}

export interface StreamAnswerBytes {
  id: string;
  /** The event's data: StreamAnswer as JSON. */
  data: Buffer;
}

export async function readStreamAnswer(
  deps: StreamReadDeps,
  query: ParsedQuery,
  now: number,
): Promise<StreamAnswerBytes> {
  return withBudget(deps.budgetMs, async (signal) => {
    const prefix = deps.config.keyPrefix;
    const generation = await deps.redis.get(globalKeys(prefix).generation);
    const space: KeySpace = { prefix, generation: generation === null ? 1 : Number(generation) };
    signal.throwIfAborted();
    let data: Buffer;
    if (deps.pool && (await isHeavy(deps, space, query))) {
      await refuseEarly(deps, space, query, now, signal);
      const result = await deps.pool.run(
        { space, query, now, budgetMs: deps.budgetMs, encoding: null },
        signal,
      );
      if (!result.ok) {
        const { kind, detail, errors } = result.error;
        throw result.rowCap ? new RowCapError(errors) : new ApiError(kind, detail, errors);
      }
      data = answerData([result.json], result.precision);
    } else {
      const answer = await readAnswerJson(deps, space, query, now, signal);
      data = answerData(answer.rows.pieces(1_000), answer.precision);
    }
    return { id: answerId(data), data };
  });
}

/**
 * An answer comes from one counter generation, whole (docs/rebuild.md "Queries across the switch").
 * A request reads `<p>:gen` once, at its start, and all its reads use that generation g; a rebuild may
 * switch to g + 1 meanwhile and then delete g, whose deleted keys read as empty: counts missing from
 * a 200. So after its reads the request reads `<p>:gen` again. The same g proves every read whole:
 * the generation only moves forward, and a generation is deleted only once it is no longer current
 * (deleteGeneration refuses the current one), so g was not being deleted before that second read,
 * which came after every read. Another generation: the request reads again on it, once; if the
 * generation moved again, it answers 503 generation_changed. No timing is assumed.
 */
import { readGeneration, type KeySpace, type RedisClient } from '@va/store';
import { ApiError } from '../http/api-error';

/** Reads of one request: on the generation it found, then once on the next (a rebuild takes minutes). */
const ATTEMPTS = 2;

export const generationChanged = (from: number, to: number): ApiError =>
  new ApiError(
    'generation_changed',
    `The counters were switched to a rebuilt generation (${from} -> ${to}) while this query read them, ` +
      'twice; retry the query.',
  );

/**
 * `read` on `space`, its result (or error) kept only when `<p>:gen` still names that generation
 * afterwards; else `read` again on the generation now current. A request aborted (time budget,
 * client gone) stops at once.
 */
export async function onOneGeneration<T>(
  redis: RedisClient,
  space: KeySpace,
  signal: AbortSignal | undefined,
  read: (space: KeySpace) => Promise<T>,
): Promise<T> {
  const first = space.generation;
  for (let attempt = 1; ; attempt++) {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await read(space) };
    } catch (error) {
      if (signal?.aborted) throw error;
      // A read of a generation being deleted may fail in any way (a code its dictionary lost):
      // whether it counts is decided by the generation, as for an answer.
      outcome = { ok: false, error };
    }
    signal?.throwIfAborted();
    const current = await readGeneration(redis, space.prefix);
    if (current === space.generation) {
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    }
    if (attempt >= ATTEMPTS) throw generationChanged(first, current);
    space = { ...space, generation: current };
  }
}

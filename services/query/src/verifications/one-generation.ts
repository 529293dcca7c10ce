/**
 * An answer comes from one counter generation, whole (docs/rebuild.md "Queries across the switch").
 * A request reads `<p>:gen` once, at its start, and all its reads use that generation g; a rebuild may
 * switch to g + 1 meanwhile and then delete g, whose deleted keys read as empty: counts missing from
 * a 200. So after its reads the request reads `<p>:gen` again. The same g proves every read whole:
 * the generation only moves forward, and a generation is deleted only once it is no longer current
 * (deleteGeneration refuses the current one), so g was not being deleted before that second read,
 * which came after every read. Another generation: the request reads again on it, once; if the
 * generation moved again, it answers 503 generation_changed. No timing is assumed.
 *
 * That second read of `<p>:gen` rides in the pipeline of the read's last counter call when the read
 * can put it there (GenerationWitness; libs/store readCounts' readAfter: on one Redis a pipeline
 * runs in order, so it comes after every read of the call); otherwise, and after a read that
 * failed, it is a round trip of its own.
 */
import { readGeneration, type KeySpace, type RedisClient } from '@va/store';
import { ApiError } from '../http/api-error';

/**
 * `<p>:gen` as a read saw it after its last Redis read, when it did (set by the read; absent: the
 * read made a Redis read after it, or none that could carry it).
 */
export interface GenerationWitness {
  after?: number;
}

/** `<p>:gen`'s value as read: absent = 1 (libs/store keys.ts). */
export const parseGeneration = (raw: string | null): number => (raw === null ? 1 : Number(raw));

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
  read: (space: KeySpace, witness: GenerationWitness) => Promise<T>,
): Promise<T> {
  const first = space.generation;
  for (let attempt = 1; ; attempt++) {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    const witness: GenerationWitness = {};
    try {
      outcome = { ok: true, value: await read(space, witness) };
    } catch (error) {
      if (signal?.aborted) throw error;
      // A read of a generation being deleted may fail in any way (a code its dictionary lost):
      // whether it counts is decided by the generation, as for an answer.
      outcome = { ok: false, error };
    }
    signal?.throwIfAborted();
    const current =
      outcome.ok && witness.after !== undefined ? witness.after : await readGeneration(redis, space.prefix);
    if (current === space.generation) {
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    }
    if (attempt >= ATTEMPTS) throw generationChanged(first, current);
    space = { ...space, generation: current };
  }
}

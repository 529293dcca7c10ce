/**
 * The first round trip of a query (docs/query-service.md "Round trips"): in one pipeline, the
 * request's admission against its limits (queued first: the slot is taken before anything is read),
 * the counter generation `<p>:gen` (the one its reads use: one-generation.ts) and the API's meta
 * (compaction point, first buckets) of the generation last seen. The meta is kept when the
 * generation read is that one; after a switch it is read again on the new one, once per service.
 */
import {
  execPipeline,
  globalKeys,
  newPipeline,
  queueApiMeta,
  type ApiMeta,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import { queueAdmission, type Admitted, type LimitsDeps, type Refusal } from '../limits/admission';
import type { LimitOwner } from '../limits/owner';

/** The API's meta as read with the request's generation, for the read path to use instead of reading it. */
export interface Prefetched {
  space: KeySpace;
  meta: ApiMeta;
}

export interface Started extends Admitted {
  space: KeySpace;
  /** Absent when the generation moved since the last request (its meta is read by the read path). */
  prefetched?: Prefetched;
}

/** The counter generation each prefix was last seen at (a guess for the next request's meta). */
const lastGeneration = new Map<string, number>();

export async function startQuery(
  redis: RedisClient,
  limits: LimitsDeps,
  owner: LimitOwner,
  requestId: string,
  prefix: string,
  /** The API whose meta is read; none when the query is refused before any read (overCapFromRange). */
  apiId: string | null,
): Promise<Started | Refusal> {
  const guess: KeySpace = { prefix, generation: lastGeneration.get(prefix) ?? 1 };
  const pipeline = newPipeline(redis);
  const admission = queueAdmission(limits, pipeline, owner, requestId, { slots: true });
  const generationAt = pipeline.length;
  pipeline.get(globalKeys(prefix).generation);
  const meta = apiId === null ? null : queueApiMeta(pipeline, guess, apiId, { firstHour: true });
  const replies = await execPipeline(pipeline);
  const admitted = admission(replies);
  if ('limit' in admitted) return admitted;
  const raw = replies[generationAt] as string | null;
  const space: KeySpace = { prefix, generation: raw === null ? 1 : Number(raw) };
  lastGeneration.set(prefix, space.generation);
  if (meta === null || space.generation !== guess.generation) return { ...admitted, space };
  return { ...admitted, space, prefetched: { space, meta: meta(replies) } };
}

/**
 * The first round trip of a query (docs/query-service.md "Round trips"): in one pipeline, the
 * request's admission against its limits (queued first: the slot is taken before anything is read),
 * the counter generation `<p>:gen` (the one its reads use: one-generation.ts), the API's meta
 * (compaction point, first buckets) and the tails of the dictionaries the query needs, of the
 * generation last seen. The meta is kept when the
 * generation read is that one; after a switch it is read again on the new one, once per service.
 */
import {
  execPipeline,
  globalKeys,
  newPipeline,
  queueApiMeta,
  type ApiMeta,
  type DictName,
  type KeySpace,
  type RedisClient,
} from '@va/store';
import { queueAdmission, type Admitted, type LimitsDeps, type Refusal } from '../limits/admission';
import type { LimitOwner } from '../limits/owner';
import type { DictionaryCache } from './dictionary-cache';

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

/** The API a query reads, and the dictionaries it needs loaded (dictionariesOf). */
export interface QueryTarget {
  apiId: string;
  /** The query's billing zone number, when its zone is one of the API's (ParsedQuery.billingZone). */
  billingZone?: number | undefined;
  dictionaries: DictionaryCache;
  names: readonly DictName[];
}

export async function startQuery(
  redis: RedisClient,
  limits: LimitsDeps,
  owner: LimitOwner,
  requestId: string,
  prefix: string,
  /** What the query reads; none when it is refused before any read (overCapFromRange). */
  target: QueryTarget | null,
): Promise<Started | Refusal> {
  const guess: KeySpace = { prefix, generation: lastGeneration.get(prefix) ?? 1 };
  const pipeline = newPipeline(redis);
  // Slots of finished requests first (limits/release-queue.ts): one write, not one more round trip each.
  const released = limits.releases.drainInto(pipeline);
  const admission = queueAdmission(limits, pipeline, owner, requestId, { slots: true });
  const generationAt = pipeline.length;
  pipeline.get(globalKeys(prefix).generation);
  const meta =
    target &&
    queueApiMeta(pipeline, guess, target.apiId, {
      firstHour: true,
      billingZone: target.billingZone,
    });
  // The tails of its dictionaries too (what was appended since this service last read them).
  const tails = target?.dictionaries.get(guess, target.apiId).queueTail(pipeline, target.names);
  const replies = await execPipeline(pipeline).finally(released);
  const raw = replies[generationAt] as string | null;
  const space: KeySpace = { prefix, generation: raw === null ? 1 : Number(raw) };
  lastGeneration.set(prefix, space.generation);
  const guessed = space.generation === guess.generation;
  // Kept even when refused: the tail is what was appended since the service's last load, and kept it is not
  // read again by the next request (a client looping on 429s does not read the same tail each time).
  if (tails && guessed) await tails(replies);
  const admitted = admission(replies);
  if ('limit' in admitted) return admitted;
  if (meta === null || !guessed) return { ...admitted, space };
  return { ...admitted, space, prefetched: { space, meta: meta(replies) } };
}

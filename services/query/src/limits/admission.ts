/**
 * The rate and concurrency limits, shared by every query service through Redis: one rate window and
 * one set of query slots per root key and, inside them, per read-token subject (docs/read-tokens.md,
 * "Limits"; docs/query-isolation.md). One script checks both (libs/store commands/admitQuery.lua, called through queueAdmitQuery), so
 * that it can ride in the pipeline that also reads the plan's inputs: a request pays one round trip
 * for its limits and its meta. Requests are limited only once their root key, query, permission and
 * API passed (the contract's check order: 401, 400, 403, 404 come first).
 *
 * A slot is released right after the answer was read, without the response waiting for it, in the
 * next pipeline the service sends (release-queue.ts); a release that is lost (a crash, Redis
 * unreachable) frees the slot when it expires (the time budget plus a margin).
 */
import type { ChainableCommander } from 'ioredis';
import { execPipeline, newPipeline, queueAdmitQuery, type RedisClient } from '@va/store';
import type { LimitOwner } from './owner';
import type { ReleaseQueue } from './release-queue';

export interface LimitsDeps {
  redis: RedisClient;
  prefix: string;
  /** Requests per window and root key; 0 = no limit. */
  rateMax: number;
  /** Requests per window and read-token subject, inside its root key's (subjectLimit). */
  rateSubjectMax: number;
  windowMs: number;
  /** Query slots per root key; 0 = no limit. */
  slotMax: number;
  /** Slots per read-token subject, inside its root key's (subjectLimit). */
  slotSubjectMax: number;
  /** A slot expires this long after it was taken (the time budget plus a margin). */
  slotTtlMs: number;
  /** Where releases wait for the next pipeline (release-queue.ts). */
  releases: ReleaseQueue;
}

export type Refusal =
  /** The rate window of the root key or of the token's subject is full: retry in `retryAfter` s. */
  | { limit: 'rate'; scope: 'rootKey' | 'subject'; retryAfter: number }
  /** Every slot of the root key, or of the token's subject, is taken. */
  | { limit: 'slots'; scope: 'rootKey' | 'subject' };

export interface Admitted {
  /** Frees the request's slots (nothing when it took none); never throws. */
  release: () => Promise<void>;
}

/**
 * Queues the admission of a request on `pipeline` (first, so that the slot is taken before the
 * commands after it read anything); `slots: false` checks the rate alone. The returned function
 * reads its reply out of the pipeline's replies.
 */
export function queueAdmission(
  deps: LimitsDeps,
  pipeline: ChainableCommander,
  owner: LimitOwner,
  requestId: string,
  options: { slots: boolean },
): (replies: readonly unknown[]) => Refusal | Admitted {
  const { rootKeyHash, subject } = owner;
  const slotMax = options.slots ? deps.slotMax : 0;
  const subjectLimits = {
    rate: deps.rateMax > 0 ? deps.rateSubjectMax : 0,
    slots: slotMax > 0 ? deps.slotSubjectMax : 0,
  };
  const decode = queueAdmitQuery(deps.redis, pipeline, {
    prefix: deps.prefix,
    rootKeyHash,
    root: { rate: deps.rateMax, slots: slotMax },
    subject: subject === null ? null : { name: subject, limits: subjectLimits },
    windowMs: deps.windowMs,
    requestId,
    slotTtlMs: deps.slotTtlMs,
  });
  return (replies) => {
    const reply = decode(replies);
    if (!reply.admitted) {
      if (reply.limit === 'slots') return { limit: 'slots', scope: reply.scope };
      return {
        limit: 'rate',
        scope: reply.scope,
        retryAfter: Math.max(1, Math.ceil(reply.retryInMs / 1000)),
      };
    }
    return {
      release: () => deps.releases.release(reply.slotSets, requestId),
    };
  };
}

/** A request's admission alone, in its own round trip (routes that read nothing after it). */
export async function admit(
  deps: LimitsDeps,
  owner: LimitOwner,
  requestId: string,
  options: { slots: boolean },
): Promise<Refusal | Admitted> {
  const pipeline = newPipeline(deps.redis);
  const released = deps.releases.drainInto(pipeline);
  const admission = queueAdmission(deps, pipeline, owner, requestId, options);
  return admission(await execPipeline(pipeline).finally(released));
}

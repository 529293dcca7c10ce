/**
 * The rate and concurrency limits, shared by every query service through Redis: one rate window and
 * one set of query slots per root key and, inside them, per read-token subject (docs/read-tokens.md,
 * "Limits"; docs/query-isolation.md). One script checks both (libs/store commands/admitQuery.lua), so
 * that it can ride in the pipeline that also reads the plan's inputs: a request pays one round trip
 * for its limits and its meta. Requests are limited only once their root key, query, permission and
 * API passed (the contract's check order: 401, 400, 403, 404 come first).
 *
 * A slot is released right after the answer was read, without the response waiting for it; a
 * release that is lost (a crash, Redis unreachable) frees the slot when it expires (the time budget
 * plus a margin).
 */
import type { ChainableCommander } from 'ioredis';
import { execPipeline, globalKeys, newPipeline, queueCommand, type RedisClient } from '@va/store';
import type { LimitOwner } from './owner';

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

const scopeOf = (i: unknown): 'rootKey' | 'subject' => (Number(i) === 2 ? 'subject' : 'rootKey');

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
  const keys = globalKeys(deps.prefix);
  const { rootKeyHash, subject } = owner;
  const slotMax = options.slots ? deps.slotMax : 0;
  const keyList = [keys.rateWindow(rootKeyHash), keys.querySlots(rootKeyHash)];
  const limits = [deps.rateMax, slotMax];
  if (subject !== null) {
    keyList.push(keys.rateWindow(rootKeyHash, subject), keys.querySubjectSlots(rootKeyHash, subject));
    limits.push(deps.rateMax > 0 ? deps.rateSubjectMax : 0, slotMax > 0 ? deps.slotSubjectMax : 0);
  }
  const at = pipeline.length;
  queueCommand(deps.redis, pipeline, 'admitQuery', [
    keyList.length,
    ...keyList,
    deps.windowMs,
    requestId,
    deps.slotTtlMs,
    ...limits,
  ]);
  const sets = slotMax > 0 ? keyList.filter((_, n) => n % 2 === 1) : [];
  return (replies) => {
    const [kind, i, ms] = replies[at] as [number, number?, number?];
    if (kind === 1)
      return { limit: 'rate', scope: scopeOf(i), retryAfter: Math.max(1, Math.ceil(Number(ms) / 1000)) };
    if (kind === 2) return { limit: 'slots', scope: scopeOf(i) };
    return {
      release: async () => {
        if (sets.length === 0) return;
        const release = newPipeline(deps.redis);
        for (const set of sets) release.zrem(set, requestId);
        await execPipeline(release).catch(() => undefined); // the slot expires (see above)
      },
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
  const admission = queueAdmission(deps, pipeline, owner, requestId, options);
  return admission(await execPipeline(pipeline));
}

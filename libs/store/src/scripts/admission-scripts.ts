/**
 * admitQuery.lua, the query service's rate windows and concurrency slots in one call
 * (docs/query-isolation.md "Limits"): its KEYS/ARGV built from the owners' limits and its reply
 * decoded side by side. It is queued on a pipeline, never sent alone: it rides in the round trip that
 * also reads a query's plan inputs.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from '../connection';
import { globalKeys } from '../keys';
import { queueCommand } from '../pipeline';

/** The limits of one owner: 0 = no limit (not counted, no slot taken). */
export interface OwnerLimits {
  /** Requests per window. */
  rate: number;
  /** Requests in progress. */
  slots: number;
}

export interface AdmissionRequest {
  prefix: string;
  /** The root key's hash: every key of the call is in its hash slot. */
  rootKeyHash: string;
  root: OwnerLimits;
  /** A read token's subject and its limits inside the root key's; null for a root key's own request. */
  subject: { name: string; limits: OwnerLimits } | null;
  windowMs: number;
  requestId: string;
  /** A slot expires this long after it was taken. */
  slotTtlMs: number;
}

/** Which owner a refusal is about: the root key or its read-token subject. */
export type LimitOwnerScope = 'rootKey' | 'subject';

export type AdmissionReply =
  | { admitted: true; slotSets: string[] }
  | { admitted: false; limit: 'rate'; scope: LimitOwnerScope; retryInMs: number }
  | { admitted: false; limit: 'slots'; scope: LimitOwnerScope };

const scopeOf = (owner: unknown): LimitOwnerScope => (Number(owner) === 2 ? 'subject' : 'rootKey');

/**
 * Queues one admitQuery call on `pipeline`; the returned function decodes its reply out of the
 * pipeline's replies. `slotSets` of an admitted request are the sets it holds a slot in (ZREM the
 * request id from each to release them).
 */
export function queueAdmitQuery(
  redis: RedisClient,
  pipeline: ChainableCommander,
  request: AdmissionRequest,
): (replies: readonly unknown[]) => AdmissionReply {
  const keys = globalKeys(request.prefix);
  const owners: [string, string, OwnerLimits][] = [
    [keys.rateWindow(request.rootKeyHash), keys.querySlots(request.rootKeyHash), request.root],
  ];
  const { subject } = request;
  if (subject !== null) {
    owners.push([
      keys.rateWindow(request.rootKeyHash, subject.name),
      keys.querySubjectSlots(request.rootKeyHash, subject.name),
      subject.limits,
    ]);
  }
  const at = pipeline.length;
  queueCommand(redis, pipeline, 'admitQuery', [
    owners.length * 2,
    ...owners.flatMap(([rate, slots]) => [rate, slots]),
    request.windowMs,
    request.requestId,
    request.slotTtlMs,
    ...owners.flatMap(([, , limits]) => [limits.rate, limits.slots]),
  ]);
  const slotSets = owners.filter(([, , limits]) => limits.slots > 0).map(([, slots]) => slots);
  return (replies) => {
    const [kind, owner, ms] = replies[at] as [number, number?, number?];
    if (kind === 1) return { admitted: false, limit: 'rate', scope: scopeOf(owner), retryInMs: Number(ms) };
    if (kind === 2) return { admitted: false, limit: 'slots', scope: scopeOf(owner) };
    return { admitted: true, slotSets };
  };
}

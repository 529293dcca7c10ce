/**
 * Decoding and validation of one Kafka message into a countable event (pure: the clock and
 * the retention are arguments). Every failure becomes a DLQ reason (reasons.ts); nothing throws.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { outcomeCode, VerificationEvent, type Outcome } from '@va/contracts';
import { HOUR_MS, monthOf, monthStart } from '@va/core';
import { identityValue, tagSetValue, type Retention } from '@va/store';
import type { DlqReason } from './reasons';

/** Far above the largest valid event (~20 kB of JSON), low enough to refuse abuse before parsing. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** CONTRACT §2: a time more than 5 minutes in the future is refused. */
export const MAX_FUTURE_MS = 5 * 60_000;
export const MAX_TAGS = 20;

const checker = TypeCompiler.Compile(VerificationEvent);

/** What the counters need of a valid event; dimension values already in dictionary form. */
export interface ValidEvent {
  ok: true;
  workspaceId: string;
  apiId: string;
  keyId: string;
  /** outcome code 0..8 */
  o: number;
  /** event time (unix ms) */
  time: number;
  /** hour index of time */
  hour: number;
  /** identity value "id\nexternalId", or undefined without identity */
  identity: string | undefined;
  /** tag set value "a,b" ("" = no tags) */
  tagSet: string;
}

export interface Rejected {
  ok: false;
  reason: DlqReason;
  detail: string;
}

/** One allocation per event on the hot path: the valid event itself, flat. */
export type Decoded = ValidEvent | Rejected;

const fail = (reason: DlqReason, detail: string): Rejected => ({ ok: false, reason, detail });

/** What decoding needs of the clock, computed once per batch. */
export interface DecodeContext {
  now: number;
  /** Times before this are past every retention: their month ended more than the month retention ago. */
  expiredBefore: number;
}

/**
 * A month m is expired when monthStart(m + 1) + monthMs <= now. The month holding `now - monthMs`
 * still ends after that instant, so it is the first month kept and its start is the cutoff.
 */
export function decodeContext(now: number, retention: Retention): DecodeContext {
  return { now, expiredBefore: monthStart(monthOf(now - retention.monthMs)) };
}

function schemaFailure(value: unknown): Decoded {
  const error = checker.Errors(value).First();
  const path = error?.path || '/';
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  if (path === '/outcome' && typeof record?.outcome === 'string') {
    return fail(
      'unknown_outcome',
      `/outcome: ${JSON.stringify(record.outcome.slice(0, 64))} is not an outcome`,
    );
  }
  if (path === '/tags' && Array.isArray(record?.tags) && record.tags.length > MAX_TAGS) {
    return fail('too_many_tags', `/tags: ${record.tags.length} tags, at most ${MAX_TAGS}`);
  }
  return fail('schema', `${path}: ${error?.message ?? 'invalid'}`);
}

export interface DecodeOptions {
  /**
   * When the record reached Kafka (its timestamp): "more than 5 minutes in the future" is judged
   * against it, so that a record processed again later (after a crash, in a rebuild) gets the
   * same verdict. Absent or invalid: the context's clock.
   */
  receivedAt?: number;
  /**
   * Default true. The ingest worker passes false and applies `isExpired` itself after its
   * per-API offset check: an event counted before must be skipped on replay, not dead-lettered
   * because its retention ended meanwhile.
   */
  checkExpiry?: boolean;
}

/** Past every retention at the context's clock: its counts would expire at once. */
export const isExpired = (e: { time: number }, { expiredBefore }: DecodeContext): boolean =>
  e.time < expiredBefore;

export const expiredDetail = (time: number): string => `time ${time} is past every retention`;

export function decodeEvent(
  value: Buffer | null | undefined,
  ctx: DecodeContext,
  options: DecodeOptions = {},
): Decoded {
  if (!value || value.length === 0) return fail('not_json', 'empty message');
  if (value.length > MAX_EVENT_BYTES)
    return fail('too_large', `${value.length} bytes, at most ${MAX_EVENT_BYTES}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return fail('not_json', err instanceof Error ? err.message.slice(0, 200) : 'invalid JSON');
  }
  if (!checker.Check(parsed)) return schemaFailure(parsed);
  const event = parsed;
  const { receivedAt } = options;
  const reference =
    receivedAt !== undefined && Number.isFinite(receivedAt) && receivedAt > 0 ? receivedAt : ctx.now;
  if (event.time > reference + MAX_FUTURE_MS) {
    return fail('future_time', `time ${event.time} is more than ${MAX_FUTURE_MS} ms after ${reference}`);
  }
  if (options.checkExpiry !== false && isExpired(event, ctx)) {
    return fail('expired', expiredDetail(event.time));
  }
  return {
    ok: true,
    workspaceId: event.workspaceId,
    apiId: event.apiId,
    keyId: event.keyId,
    o: outcomeCode(event.outcome as Outcome),
    time: event.time,
    hour: Math.floor(event.time / HOUR_MS),
    identity: event.identity ? identityValue(event.identity.id, event.identity.externalId) : undefined,
    tagSet: tagSetValue(event.tags),
  };
}

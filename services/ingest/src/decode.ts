/**
 * Decoding and validation of one Kafka message into a countable event (pure: the clock and
 * the retention are arguments). Every failure becomes a DLQ reason (reasons.ts); nothing throws.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { outcomeCode, textProblem, VerificationEvent, type Outcome } from '@va/contracts';
import { firstMinuteKept, HOUR_MS, minuteStart, monthOf, monthStart, type Retention } from '@va/core';
import { identityValue, tagSetValue } from '@va/store';
import { scanEvent } from './decode-scan';
import type { Decoded, Rejected, ValidEvent } from './decoded';
import type { DlqReason } from './reasons';

export type { Decoded, Rejected, ValidEvent } from './decoded';

/** Far above the largest valid event (~20 kB of JSON), low enough to refuse abuse before parsing. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** docs/api.md#dead-letters: a time more than 5 minutes in the future is refused. */
export const MAX_FUTURE_MS = 5 * 60_000;
export const MAX_TAGS = 20;

const checker = TypeCompiler.Compile(VerificationEvent);

const fail = (reason: DlqReason, detail: string): Rejected => ({ ok: false, reason, detail });

/** What decoding needs of the clock, computed once per batch. */
export interface DecodeContext {
  now: number;
  /** Times before this are past every retention: their month ended more than the month retention ago. */
  expiredBefore: number;
  /**
   * Times from this on are counted in their minute too (groupBy=minute): the start of the first minute the
   * minute retention keeps at `now` (Infinity when it keeps none).
   */
  minutesFrom: number;
}

/**
 * A month m is expired when monthStart(m + 1) + monthMs <= now. The month holding `now - monthMs`
 * still ends after that instant, so it is the first month kept and its start is the cutoff.
 */
export function decodeContext(now: number, retention: Retention): DecodeContext {
  return {
    now,
    expiredBefore: monthStart(monthOf(now - retention.monthMs)),
    minutesFrom: retention.minuteMs ? minuteStart(firstMinuteKept(now, retention)) : Infinity,
  };
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
  // Free text that breaks the text rule (lone surrogates, controls, bidi controls, separators).
  const text = /^\/tags\/\d+$/.test(path) || path === '/identity/externalId' ? error?.value : undefined;
  const problem = typeof text === 'string' ? textProblem(text) : undefined;
  if (problem !== undefined) return fail('invalid_text', `${path}: ${problem}`);
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

/** JSON.parse + the compiled schema: the reference every faster path must agree with. */
function parseEvent(value: Buffer): ValidEvent | Rejected {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return fail('not_json', err instanceof Error ? err.message.slice(0, 200) : 'invalid JSON');
  }
  if (!checker.Check(parsed)) return schemaFailure(parsed);
  const event = parsed;
  return {
    ok: true,
    workspaceId: event.workspaceId,
    apiId: event.apiId,
    keyId: event.keyId,
    o: outcomeCode(event.outcome as Outcome),
    time: event.time,
    hour: Math.floor(event.time / HOUR_MS),
    identity: event.identity ? identityValue(event.identity.id, event.identity.externalId) : undefined,
    tagSet: tagSetValue(event.tags, event.region),
  };
}

/** The clock's rules, after the schema's: not too far in the future, not past every retention. */
function judgeTime(event: ValidEvent, ctx: DecodeContext, options: DecodeOptions): Decoded {
  const { receivedAt } = options;
  const reference =
    receivedAt !== undefined && Number.isFinite(receivedAt) && receivedAt > 0 ? receivedAt : ctx.now;
  if (event.time > reference + MAX_FUTURE_MS) {
    return fail('future_time', `time ${event.time} is more than ${MAX_FUTURE_MS} ms after ${reference}`);
  }
  if (options.checkExpiry !== false && isExpired(event, ctx)) {
    return fail('expired', expiredDetail(event.time));
  }
  return event;
}

function decodeWith(
  parse: (value: Buffer) => ValidEvent | Rejected,
  value: Buffer | null | undefined,
  ctx: DecodeContext,
  options: DecodeOptions,
): Decoded {
  if (!value || value.length === 0) return fail('not_json', 'empty message');
  if (value.length > MAX_EVENT_BYTES)
    return fail('too_large', `${value.length} bytes, at most ${MAX_EVENT_BYTES}`);
  const event = parse(value);
  return event.ok ? judgeTime(event, ctx, options) : event;
}

const scanOrParse = (value: Buffer): ValidEvent | Rejected => scanEvent(value) ?? parseEvent(value);

/**
 * One Kafka message into a countable event or a DLQ reason. Well-formed events of the common shape
 * take the byte scanner (decode-scan.ts); everything else, and every rejection, is decided by the
 * reference (JSON.parse + schema), so both give the same verdict on every input.
 */
export const decodeEvent = (
  value: Buffer | null | undefined,
  ctx: DecodeContext,
  options: DecodeOptions = {},
): Decoded => decodeWith(scanOrParse, value, ctx, options);

/** The reference decoder alone: what the property test holds decodeEvent to. */
export const decodeEventReference = (
  value: Buffer | null | undefined,
  ctx: DecodeContext,
  options: DecodeOptions = {},
): Decoded => decodeWith(parseEvent, value, ctx, options);

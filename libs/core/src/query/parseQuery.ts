/**
 * GET /v1/analytics.getVerifications query string -> ParsedQuery (docs/api.md#parameters).
 * Every failure is collected (one FieldError each), never just the first.
 */
import { GRANULARITIES, type FieldError, type Granularity, type VerificationsQuery } from '@va/contracts';
import { DEFAULT_MINUTE_RETENTION_MS, hourOf, minuteOf } from '../time';
import type { ParsedQuery } from '../types';
import { toSchemaInput } from './coerce';
import { collectParams } from './params';
import { crossFieldErrors } from './rules';
import { queryCheckers, schemaErrors } from './schemaErrors';
import { timeZoneErrors, zoneOfQuery } from './timeZone';

export interface ParseQueryOptions {
  /** Server time (unix ms): the default of `end`. */
  now: number;
  /** Row cap (Config.maxRows): also the largest accepted `limit`. */
  maxRows: number;
  /** Config.retention.minuteMs: how old a groupBy=minute start may be (absent: the default, 48 hours). */
  minuteRetentionMs?: number;
}

export type ParseQueryResult = { ok: true; query: ParsedQuery } | { ok: false; errors: FieldError[] };

/** @param params raw pairs, as URLSearchParams yields them (already percent-decoded) */
export function parseQuery(params: Iterable<[string, string]>, options: ParseQueryOptions): ParseQueryResult {
  const collected = collectParams(params);
  const input = toSchemaInput(collected);
  const checkers = queryCheckers(options.maxRows);
  const fromSchema = schemaErrors(checkers, input, collected.failed, options.maxRows);
  const failed = new Set([...collected.failed, ...fromSchema.failedParams]);

  const passed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) if (!failed.has(name)) passed[name] = value;
  if (!checkers.partial.Check(passed))
    throw new Error('parseQuery: parameters that passed alone fail together');

  const errors = [
    ...collected.errors,
    ...fromSchema.errors,
    ...crossFieldErrors(
      passed,
      failed,
      options.now,
      options.minuteRetentionMs ?? DEFAULT_MINUTE_RETENTION_MS,
    ),
    ...timeZoneErrors(passed.timeZone),
  ];
  if (errors.length > 0) return { ok: false, errors };
  if (!checkers.full.Check(input)) throw new Error('parseQuery: no error reported for an invalid query');
  return { ok: true, query: toParsedQuery(input, options.now) };
}

const isGranularity = (g: string): g is Granularity => (GRANULARITIES as readonly string[]).includes(g);

function toParsedQuery(q: VerificationsQuery, now: number): ParsedQuery {
  const groupBy = q.groupBy ?? [];
  const granularity = groupBy.find(isGranularity);
  const parsed: ParsedQuery = {
    apiId: q.apiId,
    endHour: hourOf(q.end ?? now),
    groupBy: {
      key: groupBy.includes('key'),
      identity: groupBy.includes('identity'),
      tag: groupBy.includes('tag'),
      tags: groupBy.includes('tags'),
      ...(groupBy.includes('region') && { region: true }),
      ...(granularity && { granularity }),
    },
  };
  // Optional fields only when given, so that a ParsedQuery compares equal to its literal.
  if (q.externalId !== undefined) parsed.externalId = q.externalId;
  if (q.keyId !== undefined) parsed.keyIds = q.keyId;
  if (q.tag !== undefined) parsed.tags = q.tag;
  if (q.region !== undefined) parsed.regions = q.region;
  if (q.start != null) parsed.startHour = hourOf(q.start);
  if (granularity === 'minute' && q.start != null)
    parsed.minutes = { start: minuteOf(q.start), end: minuteOf(q.end ?? now) };
  const timeZone = zoneOfQuery(q.timeZone);
  if (timeZone !== undefined) parsed.timeZone = timeZone;
  if (q.limit !== undefined) parsed.limit = q.limit;
  if (q.orderBy !== undefined) parsed.orderBy = q.orderBy;
  if (q.order !== undefined) parsed.order = q.order;
  return parsed;
}

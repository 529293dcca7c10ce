/**
 * FORMAT: an entry of an API's crossings stream (`<p>:{a}:alerts:crossings`, keys.ts alertKeys), the one
 * codec of it. The detection writes entries (in the apply script: `XADD key * ruleId .. member ..`, the
 * fields of CROSSING_FIELDS in this order, every value a decimal or plain string); the delivery worker and
 * the replay read them. The alert id is not stored: it is derived on reading from the fields that define
 * it (libs/core alertId), so no entry can carry an id that disagrees with its crossing.
 *
 *   ruleId       rule_<24 hex>
 *   member       '' (whole API), the externalId, or the keyId
 *   period       day | month
 *   periodStart  unix ms, decimal
 *   level        the level reached, decimal
 *   count        the count when detected, decimal
 *   detectedAt   unix ms, decimal
 */
import { ALERT_PERIODS, type AlertCrossing, type AlertPeriod } from '@va/contracts';
import { alertId } from '@va/core';
import type { RedisClient } from './connection';
import { alertKeys } from './keys';

export const CROSSING_FIELDS = [
  'ruleId',
  'member',
  'period',
  'periodStart',
  'level',
  'count',
  'detectedAt',
] as const;

/** What a writer knows of a crossing: everything but the derived alertId and the apiId of the stream. */
export type CrossingFields = Omit<AlertCrossing, 'alertId' | 'apiId'>;

/** The consumer group of the delivery workers on every crossings stream. */
export const CROSSINGS_GROUP = 'delivery';

/** XADD's field/value arguments of a crossing, in CROSSING_FIELDS order. */
export function encodeCrossing(crossing: CrossingFields): string[] {
  return CROSSING_FIELDS.flatMap((field) => [field, String(crossing[field])]);
}

const integer = (raw: string | undefined, field: string): number => {
  const value = Number(raw);
  if (raw === undefined || raw === '' || !Number.isSafeInteger(value))
    throw new Error(`crossing entry: ${field} is not an integer: ${JSON.stringify(raw)}`);
  return value;
};

/** The crossing of a stream entry's field/value list (XRANGE / XREADGROUP reply); throws when malformed. */
export function decodeCrossing(apiId: string, fieldValues: readonly string[]): AlertCrossing {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < fieldValues.length; i += 2) fields.set(fieldValues[i]!, fieldValues[i + 1]!);
  const ruleId = fields.get('ruleId');
  const member = fields.get('member');
  const period = fields.get('period') as AlertPeriod | undefined;
  if (!ruleId) throw new Error('crossing entry: no ruleId');
  if (member === undefined) throw new Error('crossing entry: no member');
  if (period === undefined || !ALERT_PERIODS.includes(period))
    throw new Error(`crossing entry: period is not day or month: ${JSON.stringify(period)}`);
  const periodStart = integer(fields.get('periodStart'), 'periodStart');
  const level = integer(fields.get('level'), 'level');
  return {
    alertId: alertId(ruleId, member, periodStart, level),
    ruleId,
    apiId,
    member,
    period,
    periodStart,
    level,
    count: integer(fields.get('count'), 'count'),
    detectedAt: integer(fields.get('detectedAt'), 'detectedAt'),
  };
}

/**
 * Appends a crossing outside the apply script (tests, tools); the detection appends in its script with
 * the same fields. Returns the entry id.
 */
export async function appendCrossing(
  redis: RedisClient,
  prefix: string,
  apiId: string,
  crossing: CrossingFields,
): Promise<string> {
  return (await redis.xadd(alertKeys(prefix, apiId).crossings, '*', ...encodeCrossing(crossing)))!;
}

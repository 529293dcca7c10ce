/** The response row (docs/api.md#rows): time first, the nine counters, total, then the group fields. */
import { OUTCOME_FIELDS, type Datapoint } from '@va/contracts';
import { TOTAL } from './counts';
import type { Group } from './groups';
import { jsonText, type ByteWriter } from './json';

export function toDatapoint(time: number | null, counters: readonly number[], group: Group): Datapoint {
  // One literal per shape, not a spread: building 100,000 rows, a spread into a fresh object
  // costs several times the rest (profiled).
  const row: Datapoint =
    time === null
      ? {
          valid: counters[0]!,
          notFound: counters[1]!,
          forbidden: counters[2]!,
          usageExceeded: counters[3]!,
          rateLimited: counters[4]!,
          unauthorized: counters[5]!,
          disabled: counters[6]!,
          insufficientPermissions: counters[7]!,
          expired: counters[8]!,
          total: counters[TOTAL]!,
        }
      : {
          time,
          valid: counters[0]!,
          notFound: counters[1]!,
          forbidden: counters[2]!,
          usageExceeded: counters[3]!,
          rateLimited: counters[4]!,
          unauthorized: counters[5]!,
          disabled: counters[6]!,
          insufficientPermissions: counters[7]!,
          expired: counters[8]!,
          total: counters[TOTAL]!,
        };
  // Fresh copies: rows go to callers, who must not alias a reader's dictionary objects.
  if (group.keyId !== undefined) row.keyId = group.keyId;
  if (group.identity !== undefined)
    row.identity = { id: group.identity.id, externalId: group.identity.externalId };
  if (group.tag !== undefined) row.tag = group.tag;
  if (group.tags !== undefined) row.tags = [...group.tags];
  if (group.region !== undefined) row.region = group.region;
  return row;
}

/** `"<field>":` of the nine counters and the total, in row order (toDatapoint's literal), as bytes. */
const COUNTER_KEYS = [...OUTCOME_FIELDS, 'total'].map((field, i) =>
  jsonText(`${i === 0 ? '' : ','}"${field}":`),
);
const TIME_KEY = jsonText('{"time":');
/** The nine counters and the total when all are 0, as bytes: most rows of a long range by day are empty days. */
const ZERO_COUNTERS = jsonText(
  [...OUTCOME_FIELDS, 'total'].map((field, i) => `${i === 0 ? '' : ','}"${field}":0`).join(''),
);
/** Bytes of a row without the group's fields: keys and the widest numbers. */
/** Bytes a row takes at most without its group (writeDatapoint reserves them). */
export const ROW_BYTES = TIME_KEY.length + COUNTER_KEYS.reduce((sum, k) => sum + k.length + 22, 0) + 24;

/**
 * The JSON of a group's fields, as JSON.stringify writes them after the counters of
 * toDatapoint's row (keyId, identity, tag, tags, region), and the row's closing brace; once per group.
 */
export function groupJson(group: Group): string {
  let json = '';
  if (group.keyId !== undefined) json += `,"keyId":${JSON.stringify(group.keyId)}`;
  if (group.identity !== undefined) {
    const { id, externalId } = group.identity;
    json += `,"identity":{"id":${JSON.stringify(id)},"externalId":${JSON.stringify(externalId)}}`;
  }
  if (group.tag !== undefined) json += `,"tag":${JSON.stringify(group.tag)}`;
  if (group.tags !== undefined) json += `,"tags":${JSON.stringify(group.tags)}`;
  if (group.region !== undefined) json += `,"region":${JSON.stringify(group.region)}`;
  return `${json}}`;
}

/**
 * Writes JSON.stringify(toDatapoint(time, counters, group)) without the row object (a
 * 100,000-row answer in a fraction of the time and garbage). `group` is groupJson(group).
 */
export function writeDatapoint(
  out: ByteWriter,
  time: number | null,
  counters: readonly number[],
  group: string,
): void {
  out.reserve(ROW_BYTES);
  if (time === null) out.char(0x7b /* { */);
  else {
    out.bytes(TIME_KEY);
    out.number(time);
    out.char(0x2c /* , */);
  }
  let zero = true;
  for (let i = 0; i <= TOTAL && zero; i++) zero = counters[i] === 0;
  if (zero) out.bytes(ZERO_COUNTERS);
  else {
    for (let i = 0; i <= TOTAL; i++) {
      out.bytes(COUNTER_KEYS[i]!);
      out.number(counters[i]!);
    }
  }
  out.text(group);
}

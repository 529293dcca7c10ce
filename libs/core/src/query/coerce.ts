/**
 * Step 2: turn the collected text into the value the schema validates. Only the query
 * string's encoding is handled here (numbers are text, "null" and "" mean absent for
 * start/end); whether a value is acceptable is the schema's decision, so text that is not
 * a plain integer is passed on as a string and the schema reports the wrong type.
 */
import { INTEGER_PARAMS, NULLABLE_PARAMS } from '@va/contracts';
import type { CollectedParams } from './params';

/**
 * Plain decimal integers only: an optional minus (so "-5" is reported as out of range
 * rather than as not a number) and digits. Rejects "2.5", "1e3", "0x10", "+5", " 12", "".
 * Leading zeros are harmless and accepted ("007" = 7).
 */
const PLAIN_INTEGER = /^-?\d+$/;

const isIn = (list: readonly string[], name: string): boolean => list.includes(name);

export function toSchemaInput(collected: CollectedParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, text] of collected.scalars) {
    if (isIn(NULLABLE_PARAMS, name) && (text === '' || text === 'null')) continue;
    input[name] = isIn(INTEGER_PARAMS, name) && PLAIN_INTEGER.test(text) ? Number(text) : text;
  }
  for (const [name, items] of collected.lists) input[name] = items;
  return input;
}

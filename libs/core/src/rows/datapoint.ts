/** The response row (seed §2): time first, the nine counters, total, then the group fields. */
import type { Datapoint } from '@va/contracts';
import { TOTAL } from './counts';
import type { Group } from './groups';

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
  return row;
}

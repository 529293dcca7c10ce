/** The response row (seed §2): time first, the nine counters, total, then the group fields. */
import { outcomeCounts, type Datapoint } from '@va/contracts';
import { TOTAL } from './counts';
import type { Group } from './groups';

export function toDatapoint(time: number | null, counters: readonly number[], group: Group): Datapoint {
  const row: Datapoint = {
    ...(time !== null && { time }),
    ...outcomeCounts(counters),
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

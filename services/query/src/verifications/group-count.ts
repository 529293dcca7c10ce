/** How many groups (key / identity / tag / tags combinations) the cells make (pure). */
import type { Cell, ParsedQuery } from '@va/core';

export function groupCount(query: ParsedQuery, cells: readonly Cell[]): number {
  const { key, identity, tag, tags } = query.groupBy;
  if (!key && !identity && !tag && !tags) return 1;
  const groups = new Set<string>();
  for (const cell of cells) {
    if (identity && cell.identity === undefined) continue;
    const base = [
      key ? cell.keyId : '',
      identity ? `${cell.identity?.id}\n${cell.identity?.externalId}` : '',
      tags ? (cell.tags ?? []).join(',') : '',
    ].join('\u0001');
    if (tag) for (const t of cell.tags ?? []) groups.add(`${base}\u0001${t}`);
    else groups.add(base);
  }
  return groups.size;
}

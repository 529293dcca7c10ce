/**
 * Which stored cube answers a query (libs/store/src/keys.ts, CUBES): the smallest one that
 * has every dimension the query filters or groups by. Smaller cubes have fewer fields to
 * read; `f` (key x tag set, partitioned by identity) has everything. A region is part of the
 * tag-set dimension (libs/store dictionary-values.ts): its filter and group read `s` or `f`.
 *
 * Minute buckets (groupBy=minute) keep only `t` and `f` (docs/design.md "The next store changes": each more
 * cube is one more write per live event), so a minute query with any filter or group reads `f`.
 */
import type { ParsedQuery } from './types';

/** A stored cube: which dimensions its counters are keyed by (libs/store/src/keys.ts, CUBES). */
export type Cube = 't' | 'k' | 'i' | 's' | 'f';

export function chooseCube(
  query: Pick<ParsedQuery, 'externalId' | 'keyIds' | 'tags' | 'regions' | 'groupBy'>,
): Cube {
  const byKey = (query.keyIds?.length ?? 0) > 0 || query.groupBy.key;
  const byIdentity = query.externalId !== undefined || query.groupBy.identity;
  const byTags =
    (query.tags?.length ?? 0) > 0 ||
    (query.regions?.length ?? 0) > 0 ||
    query.groupBy.tag ||
    query.groupBy.tags ||
    query.groupBy.region === true;
  const dimensions = Number(byKey) + Number(byIdentity) + Number(byTags);
  if (dimensions === 0) return 't';
  if (dimensions > 1 || query.groupBy.granularity === 'minute') return 'f';
  return byKey ? 'k' : byIdentity ? 'i' : 's';
}

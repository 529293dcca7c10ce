/** A parsed query in dictionary codes: which cube, which codes each filter allows, what it groups by. */
import type { DictName } from '@va/store';
import { chooseCube, type ParsedQuery } from '@va/core';
import type { CubeQuery, ReadDictionaries } from '@va/store';

/** The dictionaries a query filters or groups by (loaded before reading). */
export function dictionariesOf(query: ParsedQuery): DictName[] {
  const out: DictName[] = [];
  if (query.keyIds !== undefined || query.groupBy.key) out.push('k');
  if (query.externalId !== undefined || query.groupBy.identity) out.push('i');
  const g = query.groupBy;
  // Region is part of the tag-set dimension (libs/store dictionary-values.ts).
  if (query.tags !== undefined || query.regions !== undefined || g.tag || g.tags || g.region) out.push('s');
  return out;
}

/**
 * Filters become code lists; a value no event ever carried has no code and matches
 * nothing (an empty list), which is an answer, not an error (docs/api.md#filters).
 */
export function cubeQueryOf(query: ParsedQuery, dicts: ReadDictionaries): CubeQuery {
  const cube = chooseCube(query);
  const dimension = cube === 'k' || cube === 'i' || cube === 's' ? cube : undefined;
  return {
    cube,
    // The dictionary of the cube's dimension is loaded (dictionariesOf): its length names the parts.
    ...(dimension && { codeCount: dicts.size(dimension) }),
    keys: query.keyIds !== undefined ? dicts.keyCodes(query.keyIds) : null,
    identities: query.externalId !== undefined ? [...dicts.identityCodesOf(query.externalId)] : null,
    sets: setCodesOf(query, dicts),
    group: {
      key: query.groupBy.key,
      identity: query.groupBy.identity,
      set: query.groupBy.tag || query.groupBy.tags || query.groupBy.region === true,
    },
  };
}

/**
 * The tag-set codes the tag and region filters allow (null: neither filters). A tag-set code is a
 * tag set and a region (libs/store dictionary-values.ts): both filters select among the same codes.
 */
function setCodesOf(query: ParsedQuery, dicts: ReadDictionaries): readonly number[] | null {
  const withTags = query.tags !== undefined ? dicts.setCodesWithAll(query.tags) : null;
  const inRegions = query.regions !== undefined ? dicts.setCodesInRegions(query.regions) : null;
  if (withTags === null || inRegions === null) return withTags ?? inRegions;
  const allowed = new Set(inRegions);
  return withTags.filter((code) => allowed.has(code));
}

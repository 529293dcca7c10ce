/**
 * How the string dimensions of an event become dictionary values (pure, no I/O).
 * The writer (ingest) and the readers (query service, verification) must agree on
 * these encodings byte for byte, so they live in one place.
 *
 *   k  keyId as is
 *   i  identity "id\nexternalId"   (neither part may contain "\n": id is an identifier,
 *                                    externalId has no control characters)
 *   s  tag set and region: distinct tags sorted by UTF-16 code units and joined with ","
 *      ("" = the empty set; tags contain no comma), then, only when the event has a region,
 *      REGION_MARK and the region as is. Tags contain no control character (the text rule),
 *      so the first REGION_MARK ends the tags whatever the region holds (the event schema
 *      allows any text in a region, the mark included). An event without a region (or with
 *      an empty one) keeps the value tag sets had before regions were counted, so every code
 *      stored before stays valid: such counts are "no region".
 */
import type { Identity } from '@va/core';

export const identityValue = (id: string, externalId: string): string => `${id}\n${externalId}`;

export function parseIdentity(value: string): Identity {
  const cut = value.indexOf('\n');
  return { id: value.slice(0, cut), externalId: value.slice(cut + 1) };
}

/** Separates the tags from the region in a tag-set value: a control character (U+001F). */
export const REGION_MARK = '\u001f';

/**
 * The canonical value of a tag set: order and repeats do not matter. The default
 * sort compares UTF-16 code units, as docs/api.md#order-and-limit orders strings.
 */
export function tagSetValue(tags: readonly string[] | undefined, region?: string): string {
  const set = tagsValue(tags);
  return region === undefined || region === '' ? set : `${set}${REGION_MARK}${region}`;
}

function tagsValue(tags: readonly string[] | undefined): string {
  if (tags === undefined || tags.length === 0) return '';
  if (tags.length === 1) return tags[0]!;
  if (tags.length === 2) {
    // The common case without allocating a Set and an array (`<` compares UTF-16 code units too).
    const [a, b] = tags as [string, string];
    return a === b ? a : a < b ? `${a},${b}` : `${b},${a}`;
  }
  return [...new Set(tags)].sort().join(',');
}

/** A tag-set value's tags and region (undefined: the events had none). */
export interface TagSetEntry {
  tags: string[];
  region: string | undefined;
}

export function parseTagSet(value: string): TagSetEntry {
  const mark = value.indexOf(REGION_MARK);
  const tags = mark < 0 ? value : value.slice(0, mark);
  return {
    tags: tags === '' ? [] : tags.split(','),
    region: mark < 0 ? undefined : value.slice(mark + 1),
  };
}

/**
 * How the string dimensions of an event become dictionary values (pure, no I/O).
 * The writer (ingest) and the readers (query service, verification) must agree on
 * these encodings byte for byte, so they live in one place.
 *
 *   k  keyId as is
 *   i  identity "id\nexternalId"   (neither part may contain "\n": id is an identifier,
 *                                    externalId has no control characters)
 *   s  tag set: distinct tags sorted by UTF-16 code units and joined with ","
 *      ("" = the empty set; tags contain no comma)
 */
import type { Identity } from '@va/core';

export const identityValue = (id: string, externalId: string): string => `${id}\n${externalId}`;

export function parseIdentity(value: string): Identity {
  const cut = value.indexOf('\n');
  return { id: value.slice(0, cut), externalId: value.slice(cut + 1) };
}

/**
 * The canonical value of a tag set: order and repeats do not matter. The default
 * sort compares UTF-16 code units, as docs/api.md#order-and-limit orders strings.
 */
export function tagSetValue(tags: readonly string[] | undefined): string {
  if (tags === undefined || tags.length === 0) return '';
  if (tags.length === 1) return tags[0]!;
  if (tags.length === 2) {
    // The common case without allocating a Set and an array (`<` compares UTF-16 code units too).
    const [a, b] = tags as [string, string];
    return a === b ? a : a < b ? `${a},${b}` : `${b},${a}`;
  }
  return [...new Set(tags)].sort().join(',');
}

export const parseTagSet = (value: string): string[] => (value === '' ? [] : value.split(','));

/**
 * The fast path of the decoder: one pass over the bytes of a well-formed event, straight into a
 * ValidEvent, without JSON.parse's intermediate object tree and without a string for what the
 * counters never read (requestId, the keys).
 *
 * It answers only when it is sure: `scanEvent` returns undefined ("not sure") for anything outside
 * the common shape, and the caller then asks the reference decoder (JSON.parse + the compiled
 * typebox schema). So the fast path never decides a rejection or a DLQ reason; it only has to be
 * sound, "accepted here => accepted there, with the same fields", which the property test in
 * decode-scan.property.test.ts checks on random and malformed events. The common shape:
 *
 *   - a JSON object with the schema's own keys, each at most once, in any order, with JSON
 *     whitespace anywhere JSON allows it; an unknown key, a duplicate, `null` or a wrong type: unsure;
 *   - strings without escapes; identifiers in ASCII; free text (tags, externalId, requestId, region)
 *     may hold UTF-8, checked with the text rule after decoding;
 *   - `time` as a plain non-negative integer of at most 15 digits (no sign, fraction or exponent).
 *
 * The limits and character classes come from the typebox schema itself (lengths from its
 * properties, classes by testing each ASCII character against its patterns): the schema stays the
 * single source of truth.
 *
 * The byte-level readers (strings, integers, keys, whitespace) are in decode-scan-bytes.ts; this
 * file holds the event's field table and assembles the event from them.
 */
import { OUTCOMES, VerificationEvent } from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { identityValue, tagSetValue } from '@va/store';
import type { ValidEvent } from './decoded';
import {
  asBytes,
  bounds,
  byteAt,
  checkString,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  endAt,
  EXTERNAL,
  IDENT,
  keyTable,
  lastEnd,
  OPEN_BRACE,
  OPEN_BRACKET,
  PLAIN,
  QUOTE,
  readString,
  scanKey,
  scanTime,
  skipSpace,
  startsWith,
  lastStringHash,
  TAG,
} from './decode-scan-bytes';

const P = VerificationEvent.properties;
const REQUEST_ID = bounds(P.requestId);
const WORKSPACE_ID = bounds(P.workspaceId);
const API_ID = bounds(P.apiId);
const KEY_ID = bounds(P.keyId);
const IDENTITY_ID = bounds(P.identity.properties.id);
const EXTERNAL_ID = bounds(P.identity.properties.externalId);
const TAG_TEXT = bounds(P.tags.items);
const MAX_TAG_ITEMS = P.tags.maxItems ?? Infinity;
const REGION = bounds(P.region);

// The event's keys, as bits of a "seen" mask.
const F_REQUEST_ID = 1;
const F_TIME = 2;
const F_WORKSPACE_ID = 4;
const F_API_ID = 8;
const F_KEY_ID = 16;
const F_OUTCOME = 32;
const F_IDENTITY = 64;
const F_TAGS = 128;
const F_REGION = 256;
const REQUIRED = F_REQUEST_ID | F_TIME | F_WORKSPACE_ID | F_API_ID | F_KEY_ID | F_OUTCOME;
const KEYS = keyTable([
  ['requestId', F_REQUEST_ID],
  ['time', F_TIME],
  ['workspaceId', F_WORKSPACE_ID],
  ['apiId', F_API_ID],
  ['keyId', F_KEY_ID],
  ['outcome', F_OUTCOME],
  ['identity', F_IDENTITY],
  ['tags', F_TAGS],
  ['region', F_REGION],
]);
if (KEYS.flat().length !== Object.keys(P).length) throw new Error('decode-scan: the key table misses a key');
const K_ID = 1;
const K_EXTERNAL_ID = 2;
const IDENTITY_KEYS = keyTable([
  ['id', K_ID],
  ['externalId', K_EXTERNAL_ID],
]);
const OUTCOME_BYTES = OUTCOMES.map(asBytes);

/**
 * An identity ("id\nexternalId") by its two strings: the next event with the same pair gets the same
 * string object, whose hash Maps have already computed.
 */
interface Pair {
  a: string;
  b: string;
  value: string;
}
const PAIR_BITS = 14;
const identityPairs = new Array<Pair | undefined>(1 << PAIR_BITS).fill(undefined);

function internIdentity(a: string, hashA: number, b: string, hashB: number): string {
  const slot = (Math.imul(hashA, 31) ^ hashB ^ (hashB >>> PAIR_BITS)) & ((1 << PAIR_BITS) - 1);
  const known = identityPairs[slot];
  if (known !== undefined && known.a === a && known.b === b) return known.value;
  const value = identityValue(a, b);
  identityPairs[slot] = { a, b, value };
  return value;
}

/**
 * A tag set by the list of tags an event gave (in its order, repeats kept): the next event with the
 * same list gets the same string without a Set, a sort and a join, and without a fresh string whose
 * hash every Map lookup would compute again. Direct-mapped by a hash of the tags' hashes.
 */
interface TagList {
  tags: string[];
  value: string;
}
const TAG_LIST_BITS = 14;
const tagLists = new Array<TagList | undefined>(1 << TAG_LIST_BITS).fill(undefined);
/** The tags of the list being scanned (module state like `at`): no array per event. */
const scannedTags: string[] = [];
/** A hash of the tags scanned last by scanTags (0: none), for internRegion. */
let scannedTagsHash = 0;

function internTagList(count: number, hash: number): string {
  const slot = (hash ^ (hash >>> TAG_LIST_BITS)) & ((1 << TAG_LIST_BITS) - 1);
  const known = tagLists[slot];
  if (known !== undefined && known.tags.length === count) {
    let j = 0;
    while (j < count && known.tags[j] === scannedTags[j]) j++;
    if (j === count) return known.value;
  }
  const tags = scannedTags.slice(0, count);
  const value = tagSetValue(tags);
  tagLists[slot] = { tags, value };
  return value;
}

/**
 * A tag set with a region by the tag set's value and the region (dictionary-values.ts): the next
 * event with the same pair gets the same string. Direct-mapped by the two hashes.
 */
const tagRegions = new Array<Pair | undefined>(1 << PAIR_BITS).fill(undefined);

function internRegion(tagSet: string, tagsHash: number, region: string, regionHash: number): string {
  const slot = (Math.imul(tagsHash, 31) ^ regionHash ^ (regionHash >>> PAIR_BITS)) & ((1 << PAIR_BITS) - 1);
  const known = tagRegions[slot];
  if (known !== undefined && known.a === tagSet && known.b === region) return known.value;
  const value = tagSetValue(parseTagList(tagSet), region);
  tagRegions[slot] = { a: tagSet, b: region, value };
  return value;
}

/** The tags of a tag-set value without region (already sorted and distinct: tagSetValue keeps them). */
const parseTagList = (tagSet: string): string[] => (tagSet === '' ? [] : tagSet.split(','));

/** The outcome code of the quoted outcome at p, or -1; sets `at`. */
function scanOutcome(buf: Buffer, p: number): number {
  if (byteAt(buf, p) !== QUOTE) return -1;
  let end = p + 1;
  for (let b = byteAt(buf, end); b !== QUOTE; b = byteAt(buf, ++end)) if (b < 0) return -1;
  endAt(end + 1);
  for (let code = 0; code < OUTCOME_BYTES.length; code++) {
    const name = OUTCOME_BYTES[code]!;
    if (name.length === end - p - 1 && startsWith(buf, p + 1, name)) return code;
  }
  return -1;
}

/** `{"id": …, "externalId": …}` in any order, as its dictionary value; sets `at`. */
function scanIdentity(buf: Buffer, p: number): string | undefined {
  if (byteAt(buf, p) !== OPEN_BRACE) return undefined;
  let id: string | undefined;
  let externalId: string | undefined;
  let idHash = 0;
  let externalIdHash = 0;
  p = skipSpace(buf, p + 1);
  for (;;) {
    const key = scanKey(buf, p, IDENTITY_KEYS);
    if (key === 0) return undefined;
    p = skipSpace(buf, lastEnd());
    if (byteAt(buf, p) !== COLON) return undefined;
    p = skipSpace(buf, p + 1);
    if (key === K_ID && id === undefined) {
      id = readString(buf, p, IDENT, IDENTITY_ID);
      idHash = lastStringHash();
    } else if (key === K_EXTERNAL_ID && externalId === undefined) {
      externalId = readString(buf, p, EXTERNAL, EXTERNAL_ID);
      externalIdHash = lastStringHash();
    } else return undefined;
    if ((key === K_ID ? id : externalId) === undefined) return undefined;
    p = skipSpace(buf, lastEnd());
    if (byteAt(buf, p) === COMMA) p = skipSpace(buf, p + 1);
    else if (byteAt(buf, p) === CLOSE_BRACE) break;
    else return undefined;
  }
  if (id === undefined || externalId === undefined) return undefined;
  endAt(p + 1);
  return internIdentity(id, idHash, externalId, externalIdHash);
}

/** `[…]` of tags, as the tag set's dictionary value; sets `at`. */
function scanTags(buf: Buffer, p: number): string | undefined {
  if (byteAt(buf, p) !== OPEN_BRACKET) return undefined;
  p = skipSpace(buf, p + 1);
  scannedTagsHash = 0;
  if (byteAt(buf, p) === CLOSE_BRACKET) {
    endAt(p + 1);
    return '';
  }
  let count = 0;
  let hash = 0x811c9dc5;
  for (;;) {
    const tag = readString(buf, p, TAG, TAG_TEXT);
    if (tag === undefined || count === MAX_TAG_ITEMS) return undefined;
    scannedTags[count++] = tag;
    hash = Math.imul(hash ^ lastStringHash(), 0x01000193);
    p = skipSpace(buf, lastEnd());
    if (byteAt(buf, p) === COMMA) p = skipSpace(buf, p + 1);
    else if (byteAt(buf, p) === CLOSE_BRACKET) break;
    else return undefined;
  }
  endAt(p + 1);
  scannedTagsHash = hash;
  return count === 1 ? scannedTags[0]! : internTagList(count, hash);
}

/**
 * The event in `buf` when it has the common shape and is valid under the schema; undefined when
 * the scanner is not sure (then the reference decoder decides). No clock checks here: the caller
 * judges time against the clock for both paths alike.
 */
export function scanEvent(buf: Buffer): ValidEvent | undefined {
  let p = skipSpace(buf, 0);
  if (byteAt(buf, p) !== OPEN_BRACE) return undefined;
  p = skipSpace(buf, p + 1);
  let seen = 0;
  let time = -1;
  let o = -1;
  let workspaceId: string | undefined;
  let apiId: string | undefined;
  let keyId: string | undefined;
  let identity: string | undefined;
  let tagSet: string | undefined = '';
  let tagsHash = 0;
  let region: string | undefined;
  let regionHash = 0;
  for (;;) {
    const key = scanKey(buf, p, KEYS);
    if (key === 0 || (seen & key) !== 0) return undefined;
    seen |= key;
    p = skipSpace(buf, lastEnd());
    if (byteAt(buf, p) !== COLON) return undefined;
    p = skipSpace(buf, p + 1);
    let ok: boolean;
    switch (key) {
      case F_REQUEST_ID:
        ok = checkString(buf, p, PLAIN, REQUEST_ID);
        break;
      case F_TIME:
        ok = (time = scanTime(buf, p)) >= 0;
        break;
      case F_WORKSPACE_ID:
        ok = (workspaceId = readString(buf, p, IDENT, WORKSPACE_ID)) !== undefined;
        break;
      case F_API_ID:
        ok = (apiId = readString(buf, p, IDENT, API_ID)) !== undefined;
        break;
      case F_KEY_ID:
        ok = (keyId = readString(buf, p, IDENT, KEY_ID)) !== undefined;
        break;
      case F_OUTCOME:
        ok = (o = scanOutcome(buf, p)) >= 0;
        break;
      case F_IDENTITY:
        ok = (identity = scanIdentity(buf, p)) !== undefined;
        break;
      case F_TAGS:
        ok = (tagSet = scanTags(buf, p)) !== undefined;
        tagsHash = scannedTagsHash;
        break;
      default:
        ok = (region = readString(buf, p, PLAIN, REGION)) !== undefined;
        regionHash = lastStringHash();
    }
    if (!ok) return undefined;
    p = skipSpace(buf, lastEnd());
    if (byteAt(buf, p) === COMMA) p = skipSpace(buf, p + 1);
    else if (byteAt(buf, p) === CLOSE_BRACE) break;
    else return undefined;
  }
  if ((seen & REQUIRED) !== REQUIRED || skipSpace(buf, p + 1) !== buf.length) return undefined;
  return {
    ok: true,
    workspaceId: workspaceId!,
    apiId: apiId!,
    keyId: keyId!,
    o,
    time,
    hour: Math.floor(time / HOUR_MS),
    identity,
    // A region is part of the tag-set value; an empty one is none (dictionary-values.ts).
    tagSet: region ? internRegion(tagSet!, tagsHash, region, regionHash) : tagSet!,
  };
}

/**
 * The fast path of the decoder: one pass over the bytes of a well-formed event, straight into a
 * ValidEvent, without JSON.parse's intermediate object tree and without a string for what the
 * counters never read (requestId, region, the keys).
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
 */
import {
  EXTERNAL_ID_PATTERN,
  IDENTIFIER_PATTERN,
  OUTCOMES,
  TAG_PATTERN,
  textProblem,
  VerificationEvent,
} from '@va/contracts';
import { HOUR_MS } from '@va/core';
import { identityValue, tagSetValue } from '@va/store';
import type { ValidEvent } from './decoded';

// Character classes of the ASCII bytes, as bits.
const IDENT = 1;
const TAG = 2;
const EXTERNAL = 4;
const PLAIN = 8;
/** Classes that admit non-ASCII characters (checked after decoding). */
const TEXT = TAG | EXTERNAL | PLAIN;

const classOf = (() => {
  const table = new Uint8Array(128);
  const patterns: [number, RegExp][] = [
    [IDENT, new RegExp(IDENTIFIER_PATTERN)],
    [TAG, new RegExp(TAG_PATTERN)],
    [EXTERNAL, new RegExp(EXTERNAL_ID_PATTERN)],
  ];
  for (let b = 0x20; b < 0x80; b++) {
    if (b === 0x22 || b === 0x5c) continue; // '"' ends a string, '\' starts an escape: not the fast path
    const ch = String.fromCharCode(b);
    table[b] = PLAIN;
    for (const [bit, re] of patterns) if (re.test(ch)) table[b]! |= bit;
  }
  return table;
})();

interface Bounds {
  min: number;
  max: number;
}
const bounds = (schema: { minLength?: number; maxLength?: number }): Bounds => ({
  min: schema.minLength ?? 0,
  max: schema.maxLength ?? Infinity,
});
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

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const ZERO = 0x30;
const NINE = 0x39;
/** Integers up to 15 digits are exact in a double; longer ones go to the reference decoder. */
const MAX_TIME_DIGITS = 15;

const asBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

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
/**
 * A table of quoted names by their first byte: each entry holds the name's bytes with the closing quote,
 * so that one comparison both identifies a key and finds its end (no other byte of a name is a quote).
 */
type KeyTable = (readonly (readonly [Buffer, number])[])[];
function keyTable(names: readonly (readonly [string, number])[]): KeyTable {
  const table: KeyTable = Array.from({ length: 128 }, () => []);
  for (const [name, bit] of names) {
    (table[name.charCodeAt(0)] as (readonly [Buffer, number])[]).push([asBytes(`${name}"`), bit]);
  }
  return table;
}
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

/** Where the last scan ended (the index after a value); module state, reset by every scanEvent. */
let at = 0;

/**
 * The byte at p, or -1 past the end. Every read goes through here: reading a typed array out of
 * bounds gives `undefined`, and V8's optimised code for `buf[p]` is slower once it has seen one.
 */
const byteAt = (buf: Buffer, p: number): number => (p < buf.length ? buf[p]! : -1);

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function skipSpace(buf: Buffer, p: number): number {
  while (isSpace(byteAt(buf, p))) p++;
  return p;
}

/** True when the bytes from p on start with `name`. */
function startsWith(buf: Buffer, p: number, name: Buffer): boolean {
  if (p + name.length > buf.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[p + i] !== name[i]) return false;
  return true;
}

/**
 * The bit of the key whose quoted name starts at p (0: not exactly one of the table's names, which
 * leaves escapes and unknown keys to the reference decoder); sets `at`.
 */
function scanKey(buf: Buffer, p: number, keys: KeyTable): number {
  if (byteAt(buf, p) !== QUOTE) return 0;
  const first = byteAt(buf, p + 1);
  const candidates = first >= 0 && first < 0x80 ? keys[first]! : [];
  for (let c = 0; c < candidates.length; c++) {
    const [name, bit] = candidates[c]!;
    if (startsWith(buf, p + 1, name)) {
      at = p + 1 + name.length;
      return bit;
    }
  }
  return 0;
}

// What scanText found, besides `at`.
let textStart = 0;
let textEnd = 0;
let textAscii = true;

/**
 * A string without escapes starting at p whose ASCII characters are all in `cls` (and with
 * non-ASCII characters only where `cls` is free text). Sets `at`, textStart/End/Ascii.
 */
function scanText(buf: Buffer, p: number, cls: number): boolean {
  if (byteAt(buf, p) !== QUOTE) return false;
  const start = p + 1;
  let end = start;
  let ascii = true;
  for (let b = byteAt(buf, end); b !== QUOTE; b = byteAt(buf, ++end)) {
    if (b >= 0x80) {
      if ((cls & TEXT) === 0) return false;
      ascii = false;
    } else if (b < 0 || (classOf[b]! & cls) === 0) return false;
  }
  at = end + 1;
  textStart = start;
  textEnd = end;
  textAscii = ascii;
  return true;
}

/** Node's own slicers, without toString's argument handling (undocumented but long stable). */
interface SlicingBuffer extends Buffer {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}

/**
 * Strings already made, by a hash of their bytes: the same keyId, apiId or tag in the next event
 * costs a comparison instead of a new string (and Maps downstream meet the same string again).
 * Direct-mapped: a collision replaces the entry.
 */
const INTERN_BITS = 16;
const INTERN_MASK = (1 << INTERN_BITS) - 1;
const interned: (string | undefined)[] = new Array<string | undefined>(1 << INTERN_BITS).fill(undefined);
/** FNV-1a of the bytes of the string readString returned last. */
let stringHash = 0;

const internSlot = (hash: number) => (hash ^ (hash >>> INTERN_BITS)) & INTERN_MASK;

function internAscii(buf: Buffer, start: number, end: number, hash: number): string {
  const slot = internSlot(hash);
  const known = interned[slot];
  if (known !== undefined && known.length === end - start) {
    let i = 0;
    while (i < known.length && known.charCodeAt(i) === buf[start + i]) i++;
    if (i === known.length) return known;
  }
  const text = (buf as SlicingBuffer).latin1Slice(start, end);
  interned[slot] = text;
  return text;
}

/** A decoded text as the string seen before with the same bytes, when there is one. */
function internText(text: string, hash: number): string {
  const slot = internSlot(hash);
  const known = interned[slot];
  if (known === text) return known;
  interned[slot] = text;
  return text;
}

/**
 * The string starting at p, when it has no escapes, its ASCII characters are all in `cls` (non-ASCII
 * ones only where `cls` is free text) and its length (UTF-16 code units, as the schema counts) is within
 * `limits`; undefined otherwise. Sets `at` and stringHash (checked and hashed in one pass).
 */
function readString(buf: Buffer, p: number, cls: number, limits: Bounds): string | undefined {
  if (byteAt(buf, p) !== QUOTE) return undefined;
  const start = p + 1;
  let end = start;
  let ascii = true;
  let hash = 0x811c9dc5;
  for (let b = byteAt(buf, end); b !== QUOTE; b = byteAt(buf, ++end)) {
    if (b >= 0x80) {
      if ((cls & TEXT) === 0) return undefined;
      ascii = false;
    } else if (b < 0 || (classOf[b]! & cls) === 0) return undefined;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  at = end + 1;
  stringHash = hash;
  if (ascii) {
    const length = end - start;
    if (length < limits.min || length > limits.max) return undefined;
    return internAscii(buf, start, end, hash);
  }
  const text = (buf as SlicingBuffer).utf8Slice(start, end);
  if (text.length < limits.min || text.length > limits.max) return undefined;
  if (cls !== PLAIN && textProblem(text) !== undefined) return undefined;
  return internText(text, hash);
}

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

/** readString for a value the counters do not need (requestId, region): no string when ASCII. */
function checkString(buf: Buffer, p: number, cls: number, limits: Bounds): boolean {
  if (!scanText(buf, p, cls)) return false;
  const length = textAscii
    ? textEnd - textStart
    : (buf as SlicingBuffer).utf8Slice(textStart, textEnd).length;
  return length >= limits.min && length <= limits.max;
}

/** The outcome code of the quoted outcome at p, or -1; sets `at`. */
function scanOutcome(buf: Buffer, p: number): number {
  if (byteAt(buf, p) !== QUOTE) return -1;
  let end = p + 1;
  for (let b = byteAt(buf, end); b !== QUOTE; b = byteAt(buf, ++end)) if (b < 0) return -1;
  at = end + 1;
  for (let code = 0; code < OUTCOME_BYTES.length; code++) {
    const name = OUTCOME_BYTES[code]!;
    if (name.length === end - p - 1 && startsWith(buf, p + 1, name)) return code;
  }
  return -1;
}

/** A non-negative integer without sign, fraction or exponent, or -1; sets `at`. */
function scanTime(buf: Buffer, p: number): number {
  let b = byteAt(buf, p);
  if (b < ZERO || b > NINE) return -1;
  let value = 0;
  const start = p;
  if (b === ZERO) p++;
  else {
    for (; b >= ZERO && b <= NINE; b = byteAt(buf, ++p)) value = value * 10 + (b - ZERO);
    if (p - start > MAX_TIME_DIGITS) return -1;
  }
  b = byteAt(buf, p);
  // A digit after a leading zero, a fraction or an exponent: leave them to JSON.parse.
  if ((b >= ZERO && b <= NINE) || b === 0x2e || b === 0x65 || b === 0x45) return -1;
  at = p;
  return value;
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
    p = skipSpace(buf, at);
    if (byteAt(buf, p) !== COLON) return undefined;
    p = skipSpace(buf, p + 1);
    if (key === K_ID && id === undefined) {
      id = readString(buf, p, IDENT, IDENTITY_ID);
      idHash = stringHash;
    } else if (key === K_EXTERNAL_ID && externalId === undefined) {
      externalId = readString(buf, p, EXTERNAL, EXTERNAL_ID);
      externalIdHash = stringHash;
    } else return undefined;
    if ((key === K_ID ? id : externalId) === undefined) return undefined;
    p = skipSpace(buf, at);
    if (byteAt(buf, p) === COMMA) p = skipSpace(buf, p + 1);
    else if (byteAt(buf, p) === CLOSE_BRACE) break;
    else return undefined;
  }
  if (id === undefined || externalId === undefined) return undefined;
  at = p + 1;
  return internIdentity(id, idHash, externalId, externalIdHash);
}

/** `[…]` of tags, as the tag set's dictionary value; sets `at`. */
function scanTags(buf: Buffer, p: number): string | undefined {
  if (byteAt(buf, p) !== OPEN_BRACKET) return undefined;
  p = skipSpace(buf, p + 1);
  if (byteAt(buf, p) === CLOSE_BRACKET) {
    at = p + 1;
    return '';
  }
  let count = 0;
  let hash = 0x811c9dc5;
  for (;;) {
    const tag = readString(buf, p, TAG, TAG_TEXT);
    if (tag === undefined || count === MAX_TAG_ITEMS) return undefined;
    scannedTags[count++] = tag;
    hash = Math.imul(hash ^ stringHash, 0x01000193);
    p = skipSpace(buf, at);
    if (byteAt(buf, p) === COMMA) p = skipSpace(buf, p + 1);
    else if (byteAt(buf, p) === CLOSE_BRACKET) break;
    else return undefined;
  }
  at = p + 1;
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
  for (;;) {
    const key = scanKey(buf, p, KEYS);
    if (key === 0 || (seen & key) !== 0) return undefined;
    seen |= key;
    p = skipSpace(buf, at);
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
        break;
      default:
        ok = checkString(buf, p, PLAIN, REGION);
    }
    if (!ok) return undefined;
    p = skipSpace(buf, at);
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
    tagSet: tagSet!,
  };
}

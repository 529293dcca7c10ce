/**
 * The byte-level readers of the decoder's fast path (decode-scan.ts): whitespace, quoted keys,
 * strings without escapes (checked against a character class and length bounds, and interned),
 * and plain integers. Each reader answers "not sure" (undefined, false or -1) for anything outside
 * the common shape, and on success leaves the index after the value in `at`.
 *
 * The character classes come from the typebox schema's patterns (each ASCII character tested
 * against them), so the schema stays the single source of truth.
 */
import { EXTERNAL_ID_PATTERN, IDENTIFIER_PATTERN, TAG_PATTERN, textProblem } from '@va/contracts';

// Character classes of the ASCII bytes, as bits.
export const IDENT = 1;
export const TAG = 2;
export const EXTERNAL = 4;
export const PLAIN = 8;
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

export interface Bounds {
  min: number;
  max: number;
}
export const bounds = (schema: { minLength?: number; maxLength?: number }): Bounds => ({
  min: schema.minLength ?? 0,
  max: schema.maxLength ?? Infinity,
});

export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
const ZERO = 0x30;
const NINE = 0x39;
/** Integers up to 15 digits are exact in a double; longer ones go to the reference decoder. */
const MAX_TIME_DIGITS = 15;

export const asBytes = (text: string): Buffer => Buffer.from(text, 'latin1');

/**
 * A table of quoted names by their first byte: each entry holds the name's bytes with the closing quote,
 * so that one comparison both identifies a key and finds its end (no other byte of a name is a quote).
 */
export type KeyTable = (readonly (readonly [Buffer, number])[])[];
export function keyTable(names: readonly (readonly [string, number])[]): KeyTable {
  const table: KeyTable = Array.from({ length: 128 }, () => []);
  for (const [name, bit] of names) {
    (table[name.charCodeAt(0)] as (readonly [Buffer, number])[]).push([asBytes(`${name}"`), bit]);
  }
  return table;
}

/** Where the last scan ended (the index after a value); module state, reset by every scanEvent. */
let at = 0;

/** The index after the value the last reader read. */
export const lastEnd = (): number => at;

/** Sets `at`, for readers of compound values outside this module (their closing bracket). */
export function endAt(p: number): void {
  at = p;
}

/**
 * The byte at p, or -1 past the end. Every read goes through here: reading a typed array out of
 * bounds gives `undefined`, and V8's optimised code for `buf[p]` is slower once it has seen one.
 */
export const byteAt = (buf: Buffer, p: number): number => (p < buf.length ? buf[p]! : -1);

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

export function skipSpace(buf: Buffer, p: number): number {
  while (isSpace(byteAt(buf, p))) p++;
  return p;
}

/** True when the bytes from p on start with `name`. */
export function startsWith(buf: Buffer, p: number, name: Buffer): boolean {
  if (p + name.length > buf.length) return false;
  for (let i = 0; i < name.length; i++) if (buf[p + i] !== name[i]) return false;
  return true;
}

/**
 * The bit of the key whose quoted name starts at p (0: not exactly one of the table's names, which
 * leaves escapes and unknown keys to the reference decoder); sets `at`.
 */
export function scanKey(buf: Buffer, p: number, keys: KeyTable): number {
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
/** The hash of the string readString returned last (FNV-1a of its bytes). */
export const lastStringHash = (): number => stringHash;

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
export function readString(buf: Buffer, p: number, cls: number, limits: Bounds): string | undefined {
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

/** readString for a value the counters do not need (requestId, region): no string when ASCII. */
export function checkString(buf: Buffer, p: number, cls: number, limits: Bounds): boolean {
  if (!scanText(buf, p, cls)) return false;
  const length = textAscii
    ? textEnd - textStart
    : (buf as SlicingBuffer).utf8Slice(textStart, textEnd).length;
  return length >= limits.min && length <= limits.max;
}

/** A non-negative integer without sign, fraction or exponent, or -1; sets `at`. */
export function scanTime(buf: Buffer, p: number): number {
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

/**
 * The counter field of a delta hash (keys.ts CUBES): the one module that spells and reads it. Pure.
 *
 *   cube t        "<o>"
 *   cube k, i, s  "<code>:<o>"          code = the key's, identity's or tag set's dictionary code
 *   cube f        "<key>.<set>:<o>"     (the identity is the hash's part, not in the field)
 *   minute f      "<identity>/<key>.<set>:<o>"   a minute bucket's one f hash (keys.ts): the identity's code,
 *                                       or "_" (NO_IDENTITY_PART) without one, in front of an f field
 *   minute f, packed  "#<n>" -> "<field> <count> <field> <count> ..."   a batch's minute f fields as one
 *                                       field (MinuteFieldsPacker): n is new in the hash (includes/bucketWrites.lua
 *                                       writePart), the value its fields and counts as HGETALL would
 *                                       send them
 *
 * o is the outcome code, one decimal digit below OUTCOME_COUNT (OUTCOMES order); a code is base 36,
 * lowercase, without a leading zero (code36), at most MAX_CODE_DIGITS digits. That canonical form is
 * the only one a writer makes (applyApiBatch.lua and compactNextHour.lua copy fields, never spell one).
 *
 * Policy for any other field: it THROWS (MalformedFieldError), in every reader (the query path's
 * read-fields.ts, the sealer's section/delta-rows.ts, the tests' cube-dump). A malformed field means
 * a broken store (a bug, or a hand edit): skipping it would answer a billing total that silently
 * leaves counts out, and counting it under some other name would put them in the wrong row. Failing
 * the read (and the seal, which then leaves the bucket's delta untouched) is the safe side.
 * docs/store-v2.md "What the store holds" states the rule.
 */
import { OUTCOME_COUNT } from '@va/contracts';
import { code36, NO_IDENTITY_PART } from './keys';

/** Longest code accepted: 36^10 < 2^53, so every accepted code is an exact number. */
export const MAX_CODE_DIGITS = 10;

/** A field that is not in the canonical form above: the store is broken. */
export class MalformedFieldError extends Error {
  constructor(field: string, why: string) {
    super(`malformed counter field ${JSON.stringify(field)}: ${why}`);
    this.name = 'MalformedFieldError';
  }
}

/** Digit value of a base-36 character code (0-9, a-z), -1 for any other. */
export function digit36(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
}

/** The field of cube t. */
export const totalField = (outcome: number): string => String(outcome);

/** The field of cube k, i or s, from the code already in base 36 (code36). */
export const codeField = (code: string, outcome: number): string => `${code}:${outcome}`;

/** The field of cube f, from the key's and the tag set's codes already in base 36 (code36). */
export const keySetField = (key: string, set: string, outcome: number): string => `${key}.${set}:${outcome}`;

/** A field read back: its outcome and the base-36 text of its codes ("" where the cube has none). */
export interface FieldText {
  outcome: number;
  /** k, i, s: the code; f: the key's code; t: "". */
  first: string;
  /** f: the tag set's code; otherwise "". */
  second: string;
}

/** Checks that field[from, to) is a canonical base-36 code; returns it. */
function codeText(field: string, from: number, to: number): string {
  const digits = to - from;
  if (digits < 1 || digits > MAX_CODE_DIGITS) throw new MalformedFieldError(field, 'bad code length');
  if (digits > 1 && field.charCodeAt(from) === 48)
    throw new MalformedFieldError(field, 'code with a leading zero');
  for (let p = from; p < to; p++) {
    if (digit36(field.charCodeAt(p)) < 0) throw new MalformedFieldError(field, 'code not in base 36');
  }
  return field.slice(from, to);
}

function outcomeAt(field: string, at: number): number {
  const o = field.charCodeAt(at) - 48;
  if (!(o >= 0 && o < OUTCOME_COUNT) || at !== field.length - 1) {
    throw new MalformedFieldError(field, 'bad outcome');
  }
  return o;
}

/** Reads a field of `cube` (t, k, i, s, f) as text; throws MalformedFieldError on anything else. */
export function readFieldText(cube: string, field: string): FieldText {
  if (cube === 't') return { outcome: outcomeAt(field, 0), first: '', second: '' };
  const colon = field.length - 2;
  if (colon < 1 || field.charCodeAt(colon) !== 58 /* : */) throw new MalformedFieldError(field, 'no ":<o>"');
  const outcome = outcomeAt(field, colon + 1);
  if (cube === 'f') {
    const dot = field.indexOf('.');
    if (dot < 0 || dot > colon) throw new MalformedFieldError(field, 'no "<key>.<set>"');
    return { outcome, first: codeText(field, 0, dot), second: codeText(field, dot + 1, colon) };
  }
  if (cube === 'k' || cube === 'i' || cube === 's')
    return { outcome, first: codeText(field, 0, colon), second: '' };
  throw new MalformedFieldError(field, `no counter fields in cube ${cube}`);
}

/** A field decoded: its outcome and codes ([] for t, [code] for k, i, s, [key, set] for f). */
export interface CounterField {
  outcome: number;
  codes: number[];
}

/** Reads a field of `cube` into numbers; throws MalformedFieldError unless canonical. */
export function decodeField(cube: string, field: string): CounterField {
  const { outcome, first, second } = readFieldText(cube, field);
  if (cube === 't') return { outcome, codes: [] };
  if (cube === 'f') return { outcome, codes: [parseInt(first, 36), parseInt(second, 36)] };
  return { outcome, codes: [parseInt(first, 36)] };
}

/** The field of `cube` for these codes (decodeField's inverse). */
export function encodeField(cube: string, { outcome, codes }: CounterField): string {
  if (cube === 't') return totalField(outcome);
  if (cube === 'f') return keySetField(code36(codes[0]!), code36(codes[1]!), outcome);
  return codeField(code36(codes[0]!), outcome);
}

/** A code as it appears in a key or field (a hash's part, a dictionary code); throws unless canonical base 36. */
export function decodeCode(text: string): number {
  return parseInt(codeText(text, 0, text.length), 36);
}

/** The field of a minute bucket's f hash: the hash's part (identity code, or "_") in front of an f field. */
export const minuteFField = (part: string, keySet: string): string => `${part}/${keySet}`;

/** A packed minute field's name: "#" (which starts no counter field) and decimal digits. */
const PACKED_NAME = /^#[0-9]+$/;
const PACKED_MARK_CODE = 35; /* # */

/** Where the pairs of the packed field named at `at` ("#<n> ") start; throws unless the name is canonical. */
function afterPackedName(text: string, at: number): number {
  const space = text.indexOf(' ', at);
  const name = text.slice(at, space < 0 ? undefined : space);
  if (space < 0 || !PACKED_NAME.test(name))
    throw new MalformedFieldError(name, 'not a packed field "#<n>" with pairs');
  return space + 1;
}

/**
 * A batch's fields of one minute f hash as the value of one packed field "#<n>" (applyApiBatch.lua names
 * it): "field count field count ...", the text HGETALL would send for them as fields, in latin1 bytes. Written
 * by one HSET where the fields would cost a HINCRBY each (docs/design.md "The next store changes"); read back by
 * textsByPart, which takes the name for a token of its own and then meets ordinary pairs. Pair by pair, as bytes:
 * the worker packs a minute of tens of thousands of tuples per batch, and a string per field (and per pair, and
 * the joined text, a large object of the old generation) was garbage its collector paid for on every live event.
 */
export class MinuteFieldsPacker {
  private buf = Buffer.allocUnsafe(1024);
  private at = 0;

  /** Adds the pair of the minute f field minuteFField(part, keySetField(key, set, outcome)) and its count. */
  add(part: string, key: string, set: string, outcome: number, n: number): void {
    this.reserve(part.length + key.length + set.length + 24);
    this.separate();
    this.text(part);
    this.buf[this.at++] = 0x2f; // /
    this.text(key);
    this.buf[this.at++] = 0x2e; // .
    this.text(set);
    this.buf[this.at++] = 0x3a; // :
    this.buf[this.at++] = 0x30 + outcome;
    this.count(n);
  }

  /** The pairs so far ("" when none). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  private separate(): void {
    if (this.at > 0) this.buf[this.at++] = 0x20;
  }

  private text(text: string): void {
    for (let c = 0; c < text.length; c++) this.buf[this.at++] = text.charCodeAt(c);
  }

  /** " <n>": a count is a positive integer below 2^53 (16 digits at most). */
  private count(n: number): void {
    this.buf[this.at++] = 0x20;
    if (n < 10) this.buf[this.at++] = 0x30 + n;
    else this.at += this.buf.write(String(n), this.at, 'latin1');
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
}

/**
 * A minute f hash as readBuckets.lua returns it ("field value field value ..."), cut into the texts of f
 * fields per part (identity code or "_"), as an f hash of that part would read: the part is checked here
 * (canonical base 36, or "_"), the rest by whoever reads the texts (FieldSums, addCount). Parts `keep`
 * rejects (an identity filter) are left out. A packed field (MinuteFieldsPacker) reads as its name, one token
 * that is skipped, followed by the pairs of its value.
 */
export function textsByPart(text: string, keep?: (part: string) => boolean): Map<string, string> {
  const out = new Map<string, string[]>();
  let at = 0;
  while (at < text.length) {
    if (text.charCodeAt(at) === PACKED_MARK_CODE) {
      at = afterPackedName(text, at);
      continue;
    }
    const slash = text.indexOf('/', at);
    const space = text.indexOf(' ', at);
    if (slash < 0 || space < 0 || slash > space) {
      throw new MalformedFieldError(text.slice(at, space < 0 ? undefined : space), 'no "<identity>/"');
    }
    const part = text.slice(at, slash);
    if (part !== NO_IDENTITY_PART) codeText(text.slice(at, slash), 0, slash - at);
    const next = text.indexOf(' ', space + 1);
    const end = next < 0 ? text.length : next;
    if (!keep || keep(part)) {
      const fields = out.get(part);
      const pair = text.slice(slash + 1, end);
      if (fields) fields.push(pair);
      else out.set(part, [pair]);
    }
    at = end + 1;
  }
  return new Map([...out].map(([part, pairs]) => [part, pairs.join(' ')]));
}
